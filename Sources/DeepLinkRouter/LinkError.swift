/// Why a link cannot be generated.
public struct LinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case unknownRoute, unknownEntityType, missingParameter, unknownParameter, invalidValue
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// No route has that name.
        public static let unknownRoute = Code(.unknownRoute)
        /// No route opens that entity type.
        public static let unknownEntityType = Code(.unknownEntityType)
        /// A path parameter has no value.
        public static let missingParameter = Code(.missingParameter)
        /// A value is given for a parameter the route does not have.
        public static let unknownParameter = Code(.unknownParameter)
        /// A value does not fit its parameter's type, or cannot round-trip through a URL.
        public static let invalidValue = Code(.invalidValue)

        public var description: String { String(describing: wrapped) }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation naming the route and parameter.
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
