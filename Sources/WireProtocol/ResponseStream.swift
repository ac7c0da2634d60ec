import Synchronization

/// The responses of a server-streaming call, as an `AsyncSequence` of messages.
///
/// Iteration ends normally when the server ends the call with OK and throws `RPCError` for any
/// other status. Cancelling the iterating task, or dropping the stream before its end, cancels
/// the call (RST_STREAM CANCEL).
public struct ResponseStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let messages: AsyncThrowingStream<[UInt8], any Error>
    let state: ResponseStreamState
    /// Keeps the client, and so its connection, alive while the stream is.
    let client: GRPCClient
    /// Cancels the call (RST_STREAM CANCEL); nothing once it has ended.
    let cancel: @Sendable () -> Void

    /// The server's initial metadata; waits for the response headers.
    ///
    /// - Throws: `RPCError` if the call ends without them, with a non-OK status.
    public var initialMetadata: Metadata {
        get async throws { try await state.waitForInitialMetadata() }
    }

    /// The trailing metadata, once iteration has ended.
    public var trailingMetadata: Metadata? { state.outcome?.trailing }

    /// The final status, once iteration has ended.
    public var status: Status? { state.outcome?.status }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: messages.makeAsyncIterator(), state: state, client: client, cancel: cancel)
    }

    /// Iterates the messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        let state: ResponseStreamState
        let client: GRPCClient
        let cancel: @Sendable () -> Void

        public mutating func next() async throws -> [UInt8]? {
            // A cancelled task stops here even with messages already received: the stream only
            // notices cancellation while it waits for one, and a consumer that fell behind (a
            // busy machine) would otherwise read every buffered message first.
            if Task.isCancelled {
                cancel()
                throw RPCError(code: .cancelled, message: "the call was cancelled")
            }
            if let message = try await base.next() {
                state.messageConsumed()
                return message
            }
            if state.outcome == nil {
                // The stream ended without an outcome: the iterating task was cancelled.
                throw RPCError(code: .cancelled, message: "the call was cancelled")
            }
            return nil
        }
    }
}

/// What the loop shares with a `ResponseStream`.
final class ResponseStreamState: Sendable {
    struct Outcome {
        var status: Status
        var trailing: Metadata
    }

    private struct State {
        var initial: Result<Metadata, RPCError>?
        var waiters: [CheckedContinuation<Metadata, any Error>] = []
        var outcome: Outcome?
        var consumedMessages = 0
        var onConsumed: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Sets what to call (once per batch) when the consumer takes messages.
    func setConsumptionHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onConsumed = handler }
    }

    /// Counts a message taken by the consumer; the first of a batch notifies the loop.
    func messageConsumed() {
        let notify = state.withLock { state -> (@Sendable () -> Void)? in
            state.consumedMessages += 1
            return state.consumedMessages == 1 ? state.onConsumed : nil
        }
        notify?()
    }

    /// The messages consumed since the last call.
    func takeConsumed() -> Int {
        state.withLock { state in
            defer { state.consumedMessages = 0 }
            return state.consumedMessages
        }
    }

    var outcome: Outcome? { state.withLock { $0.outcome } }

    func setInitial(_ result: Result<Metadata, RPCError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Metadata, any Error>] in
            if state.initial != nil { return [] }
            state.initial = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 }) }
    }

    func setOutcome(_ outcome: Outcome) {
        state.withLock { $0.outcome = outcome }
    }

    func waitForInitialMetadata() async throws -> Metadata {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<Metadata, RPCError>? in
                if let initial = state.initial { return initial }
                state.waiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result.mapError { $0 }) }
        }
    }
}
