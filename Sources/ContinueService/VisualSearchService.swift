import SearchAPI
public import WireProtocol

/// `vicontinue.v1.VisualSearch`: thin handlers from API messages to the libraries.
public struct VisualSearchService: Sendable {
    /// Pixel buffers are large (a 5K screenshot is ~59 MB), so the methods that carry a
    /// descriptor accept more than the default 4 MiB.
    public static let descriptorReceiveLimit = 64 << 20

    public init() {}

    /// The methods to serve.
    public var methods: [ServerMethod] {
        typealias Paths = MethodPaths.VisualSearch
        return [
            .unary(Paths.query, maxRequestBytes: Self.descriptorReceiveLimit) {
                (_: QueryRequest, _) throws(RPCError) -> QueryResponse in
                throw notYet("Query")
            },
            .serverStreaming(Paths.streamQuery, maxRequestBytes: Self.descriptorReceiveLimit) {
                (_: QueryRequest, _, _: MessageSink<QueryResult>) throws(RPCError) in
                throw notYet("StreamQuery")
            },
            .unary(Paths.capture, maxRequestBytes: Self.descriptorReceiveLimit) {
                (_: CaptureRequest, _) throws(RPCError) -> SearchState in
                throw notYet("Capture")
            },
            .unary(Paths.search) { (_: SearchRequest, _) throws(RPCError) -> SearchState in
                throw notYet("Search")
            },
            .unary(Paths.resolve) { (_: ResolveRequest, _) throws(RPCError) -> Destination in
                throw notYet("Resolve")
            },
            .unary(Paths.link) { (_: LinkRequest, _) throws(RPCError) -> LinkResponse in
                throw notYet("Link")
            },
            .unary(Paths.upsertEntities, maxRequestBytes: Self.descriptorReceiveLimit) {
                (_: UpsertEntitiesRequest, _) throws(RPCError) -> CatalogUpdateResponse in
                throw notYet("UpsertEntities")
            },
            .unary(Paths.deleteEntities) {
                (_: DeleteEntitiesRequest, _) throws(RPCError) -> CatalogUpdateResponse in
                throw notYet("DeleteEntities")
            },
        ]
    }
}

/// The answer of a method whose library has not landed yet.
private func notYet(_ method: String) -> RPCError {
    RPCError(code: .unimplemented, message: "\(method) is not implemented yet")
}
