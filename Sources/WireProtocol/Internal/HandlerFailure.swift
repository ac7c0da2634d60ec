/// What an error thrown by a handler becomes on the wire, for every protocol the server speaks
/// (gRPC over HTTP/2, Connect and gRPC-Web): one mapping, so a client sees the same status
/// whichever protocol it called with.
enum HandlerFailure {
    /// The status and trailing metadata a handler's thrown `error` stands for.
    ///
    /// An ``RPCError`` or ``RPCErrorConvertible`` gives its own code, message and metadata; a
    /// cancellation is DEADLINE_EXCEEDED once `deadline` has passed and CANCELLED before it;
    /// anything else is UNKNOWN, naming only the error's type (its text may hold internals).
    ///
    /// - Parameters:
    ///   - error: What the handler threw.
    ///   - deadline: The call's deadline, if it has one.
    ///   - now: The time to compare the deadline with.
    /// - Returns: The status and the metadata to send with it.
    static func status(
        of error: any Error, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now
    ) -> (status: Status, metadata: Metadata) {
        switch error {
        case let error as RPCError:
            return (error.status, error.metadata)
        case let error as any RPCErrorConvertible:
            return (Status(code: error.rpcErrorCode, message: error.rpcErrorMessage), error.rpcErrorMetadata)
        case is CancellationError:
            if let deadline, now >= deadline {
                return (Status(code: .deadlineExceeded, message: "deadline exceeded"), [:])
            }
            return (Status(code: .cancelled, message: "the call was cancelled"), [:])
        default:
            return (Status(code: .unknown, message: "handler failed: \(type(of: error))"), [:])
        }
    }
}
