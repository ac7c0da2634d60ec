/// An error from the search library: a code the service maps to a status, and a message.
///
/// Errors are values with an extensible ``Code`` so that callers can switch on the kind of
/// failure without parsing text; the message is for people and logs.
public struct SearchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case invalidArgument, notFound, invalidCatalog, imageDecoding, storage, catalogChanged, internalError
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The request is malformed (a bad descriptor, filter or page token): INVALID_ARGUMENT.
        public static let invalidArgument = Code(.invalidArgument)
        /// The session or entity does not exist or has expired: NOT_FOUND.
        public static let notFound = Code(.notFound)
        /// A catalog line or entity could not be read.
        public static let invalidCatalog = Code(.invalidCatalog)
        /// An image file could not be decoded.
        public static let imageDecoding = Code(.imageDecoding)
        /// The session store failed: UNAVAILABLE or INTERNAL.
        public static let storage = Code(.storage)
        /// A page token names a catalog version that is no longer kept: FAILED_PRECONDITION, so
        /// the client starts again from page 1 instead of getting a silently different ranking.
        public static let catalogChanged = Code(.catalogChanged)
        /// A broken invariant: INTERNAL.
        public static let internalError = Code(.internalError)

        public var description: String {
            switch wrapped {
            case .invalidArgument: "invalid argument"
            case .notFound: "not found"
            case .invalidCatalog: "invalid catalog"
            case .imageDecoding: "image decoding"
            case .storage: "storage"
            case .catalogChanged: "catalog changed"
            case .internalError: "internal error"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The underlying error's description, when there was one.
    public var cause: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What went wrong.
    ///   - cause: The underlying error's description.
    public init(code: Code, message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }

    static func invalid(_ message: String) -> SearchError { SearchError(code: .invalidArgument, message: message) }
}
