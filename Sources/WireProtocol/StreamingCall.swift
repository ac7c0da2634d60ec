/// A bidirectional-streaming call made by `GRPCClient`: the requests it sends and the responses
/// it receives, used from any tasks, at the same time.
public struct StreamingCall: Sendable {
    /// Sends the requests; `finish()` ends them.
    public let requests: RequestSender
    /// The responses and, at their end, the status.
    public let responses: ResponseStream
}

/// Sends the request messages of a client- or bidirectional-streaming call.
public struct RequestSender: Sendable {
    let call: ClientCall
    let core: ClientCore
    let compression: CompressionAlgorithm

    /// Sends one message.
    ///
    /// Returns once the transport has taken the message, which the server's flow-control
    /// window paces: a server that stops reading stops the sender.
    ///
    /// - Throws: `RPCError`: the call's status once it has ended (or FAILED_PRECONDITION after
    ///   an OK end or after `finish()`), INTERNAL when compression fails.
    public func send(_ message: [UInt8]) async throws {
        let framed: [UInt8]
        do {
            framed = try Envelope.frame(message, compression: compression)
        } catch {
            throw RPCError(code: .internalError, message: "compression failed", cause: error)
        }
        let call = self.call
        let core = self.core
        try await withCheckedThrowingContinuation { (sent: CheckedContinuation<Void, any Error>) in
            core.loop.execute { core.send(call, framed, sent: sent) }
        }
    }

    /// Ends the requests (the client half-closes); later sends throw.
    public func finish() {
        let call = self.call
        let core = self.core
        core.loop.execute { core.halfClose(call) }
    }
}
