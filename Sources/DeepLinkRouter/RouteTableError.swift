/// Why a route table cannot be loaded.
///
/// Messages name the route(s) involved; a conflict also gives an example URL that both routes
/// match.
public struct RouteTableError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case invalidJSON, invalidField, invalidPattern, duplicateRoute, duplicateEntity, conflict, unreadable
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The file is not JSON.
        public static let invalidJSON = Code(.invalidJSON)
        /// A field is missing, has the wrong type, or an unknown value.
        public static let invalidField = Code(.invalidField)
        /// A route pattern or parameter type cannot be parsed.
        public static let invalidPattern = Code(.invalidPattern)
        /// Two routes have the same name.
        public static let duplicateRoute = Code(.duplicateRoute)
        /// Two routes open the same entity type.
        public static let duplicateEntity = Code(.duplicateEntity)
        /// Two routes of equal rank can match one URL.
        public static let conflict = Code(.conflict)
        /// The file cannot be read.
        public static let unreadable = Code(.unreadable)

        public var description: String { String(describing: wrapped) }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation naming the route(s) involved.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A human-readable explanation.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
