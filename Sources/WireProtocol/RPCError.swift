/// An error carrying a non-OK gRPC status, its trailing metadata and an optional cause.
///
/// Handlers throw it to choose the status a client sees; the client throws it when a call ends
/// with any status other than OK.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    /// The status code; never `.ok`.
    public var code: Status.Code
    /// The status message.
    public var message: String
    /// Trailing metadata sent with, or received with, the status.
    public var metadata: Metadata
    /// The underlying error, if there was one.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The status code.
    ///   - message: The status message.
    ///   - metadata: Trailing metadata to send with the status.
    ///   - cause: The underlying error, kept for diagnostics; never sent.
    public init(code: Status.Code, message: String, metadata: Metadata = [:], cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.metadata = metadata
        self.cause = cause
    }

    /// The status this error stands for.
    public var status: Status { Status(code: code, message: message) }

    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}
