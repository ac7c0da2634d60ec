/// The `:path` of every method the service answers.
public enum MethodPaths {
    /// `vicontinue.v1.VisualSearch`.
    public enum VisualSearch {
        public static let query = "/vicontinue.v1.VisualSearch/Query"
        public static let streamQuery = "/vicontinue.v1.VisualSearch/StreamQuery"
        public static let capture = "/vicontinue.v1.VisualSearch/Capture"
        public static let search = "/vicontinue.v1.VisualSearch/Search"
        public static let resolve = "/vicontinue.v1.VisualSearch/Resolve"
        public static let link = "/vicontinue.v1.VisualSearch/Link"
        public static let upsertEntities = "/vicontinue.v1.VisualSearch/UpsertEntities"
        public static let deleteEntities = "/vicontinue.v1.VisualSearch/DeleteEntities"
        public static let catalogInfo = "/vicontinue.v1.VisualSearch/CatalogInfo"
        public static let explainRoute = "/vicontinue.v1.VisualSearch/ExplainRoute"
        public static let checkRoutes = "/vicontinue.v1.VisualSearch/CheckRoutes"
    }

    /// `grpc.health.v1.Health`.
    public enum Health {
        public static let check = "/grpc.health.v1.Health/Check"
        public static let watch = "/grpc.health.v1.Health/Watch"
    }

    /// `grpc.reflection.v1.ServerReflection` and the same service under its older name,
    /// `grpc.reflection.v1alpha.ServerReflection`, which older tools still ask for.
    public enum ServerReflection {
        public static let v1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
        public static let v1alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
    }
}
