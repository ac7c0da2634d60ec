/// Why a string is not a URL under the WHATWG URL Standard (or not one this parser accepts).
///
/// The parser follows the Standard's failure cases; validation errors that the Standard recovers
/// from are recovered from here too and never reported.
public struct URLParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case missingScheme, hostMissing, invalidHost, invalidIPv4, invalidIPv6, invalidPort
            case unsupportedIDNA, tooLong
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The input has no scheme (relative URLs need a base, which this parser never has).
        public static let missingScheme = Code(.missingScheme)
        /// A special URL (or one with credentials or a port) has an empty host.
        public static let hostMissing = Code(.hostMissing)
        /// The host holds a forbidden code point or an invalid percent-encoding.
        public static let invalidHost = Code(.invalidHost)
        /// The host ends in a number but is not a valid IPv4 address.
        public static let invalidIPv4 = Code(.invalidIPv4)
        /// The bracketed host is not a valid IPv6 address.
        public static let invalidIPv6 = Code(.invalidIPv6)
        /// The port is not a decimal number up to 65535.
        public static let invalidPort = Code(.invalidPort)
        /// The host is not ASCII: IDNA conversion is not supported.
        public static let unsupportedIDNA = Code(.unsupportedIDNA)
        /// The input is longer than the caller allows.
        public static let tooLong = Code(.tooLong)

        public var description: String { String(describing: wrapped) }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation naming the offending part.
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
