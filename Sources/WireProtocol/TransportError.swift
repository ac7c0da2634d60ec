/// A failure to bind, listen or connect.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The address could not be parsed or resolved.
        public static let badAddress = Code("badAddress")
        /// bind or listen failed.
        public static let bindFailed = Code("bindFailed")
        /// connect failed.
        public static let connectFailed = Code("connectFailed")
        /// The server was already run.
        public static let alreadyRunning = Code("alreadyRunning")
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// A description including the address and `errno` text.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
