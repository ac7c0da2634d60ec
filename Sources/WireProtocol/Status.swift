/// The outcome of an RPC: a gRPC status code and a human-readable message.
///
/// The status travels in the `grpc-status` and `grpc-message` trailers; the message is
/// percent-encoded on the wire and decoded again on receipt.
public struct Status: Sendable, Hashable, CustomStringConvertible {
    /// A gRPC status code, as listed in the gRPC `statuscodes.md`.
    ///
    /// The set is open: codes the peer sends that are not listed here are kept as their raw value.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The numeric value sent in `grpc-status`.
        public var rawValue: Int

        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Not an error; returned on success.
        public static let ok = Code(rawValue: 0)
        /// The operation was cancelled, typically by the caller.
        public static let cancelled = Code(rawValue: 1)
        /// Unknown error.
        public static let unknown = Code(rawValue: 2)
        /// The client specified an invalid argument.
        public static let invalidArgument = Code(rawValue: 3)
        /// The deadline expired before the operation could complete.
        public static let deadlineExceeded = Code(rawValue: 4)
        /// Some requested entity was not found.
        public static let notFound = Code(rawValue: 5)
        /// The entity that a client attempted to create already exists.
        public static let alreadyExists = Code(rawValue: 6)
        /// The caller does not have permission to execute the operation.
        public static let permissionDenied = Code(rawValue: 7)
        /// Some resource has been exhausted, for example a message size limit.
        public static let resourceExhausted = Code(rawValue: 8)
        /// The system is not in a state required for the operation's execution.
        public static let failedPrecondition = Code(rawValue: 9)
        /// The operation was aborted.
        public static let aborted = Code(rawValue: 10)
        /// The operation was attempted past the valid range.
        public static let outOfRange = Code(rawValue: 11)
        /// The operation is not implemented or not supported.
        public static let unimplemented = Code(rawValue: 12)
        /// Internal error: an invariant expected by the system was broken.
        public static let internalError = Code(rawValue: 13)
        /// The service is currently unavailable; the call may be retried.
        public static let unavailable = Code(rawValue: 14)
        /// Unrecoverable data loss or corruption.
        public static let dataLoss = Code(rawValue: 15)
        /// The request does not have valid authentication credentials.
        public static let unauthenticated = Code(rawValue: 16)

        /// The upper-snake-case name used by the gRPC documentation, or the number when unknown.
        public var description: String {
            switch rawValue {
            case 0: "OK"
            case 1: "CANCELLED"
            case 2: "UNKNOWN"
            case 3: "INVALID_ARGUMENT"
            case 4: "DEADLINE_EXCEEDED"
            case 5: "NOT_FOUND"
            case 6: "ALREADY_EXISTS"
            case 7: "PERMISSION_DENIED"
            case 8: "RESOURCE_EXHAUSTED"
            case 9: "FAILED_PRECONDITION"
            case 10: "ABORTED"
            case 11: "OUT_OF_RANGE"
            case 12: "UNIMPLEMENTED"
            case 13: "INTERNAL"
            case 14: "UNAVAILABLE"
            case 15: "DATA_LOSS"
            case 16: "UNAUTHENTICATED"
            default: "CODE_\(rawValue)"
            }
        }
    }

    /// The status code.
    public var code: Code
    /// The status message; empty when there is none.
    public var message: String

    /// Creates a status.
    public init(code: Code, message: String = "") {
        self.code = code
        self.message = message
    }

    /// The OK status with no message.
    public static let ok = Status(code: .ok)

    public var description: String {
        message.isEmpty ? "\(code)" : "\(code): \(message)"
    }
}
