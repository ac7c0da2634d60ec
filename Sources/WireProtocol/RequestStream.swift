import Synchronization

/// The request messages of a client- or bidirectional-streaming call, as an `AsyncSequence`.
///
/// Messages come in the order the client sent them, each as soon as it is whole. Iteration ends
/// normally when the client half-closes, and throws `RPCError` when the call ends otherwise (the
/// client cancelled, the deadline passed, a message broke a limit). Taking a message is what
/// lets the client send more: while the handler does not iterate, the server stops granting
/// the stream HTTP/2 flow-control window.
public struct RequestStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let messages: AsyncThrowingStream<[UInt8], any Error>
    let consumption: RequestConsumption

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: messages.makeAsyncIterator(), consumption: consumption)
    }

    /// Iterates the request messages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        let consumption: RequestConsumption

        public mutating func next() async throws -> [UInt8]? {
            guard let message = try await base.next() else { return nil }
            consumption.messageTaken()
            return message
        }
    }
}

/// Counts the request messages a handler took, and tells the connection's loop once per batch
/// (one hop for many messages taken in a row), so it can reopen the stream's window.
final class RequestConsumption: Sendable {
    private struct State {
        var taken = 0
        var notify: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Sets what to call when a batch of takes begins; the loop then calls `takeCount()`.
    func setNotification(_ notify: @escaping @Sendable () -> Void) {
        state.withLock { $0.notify = notify }
    }

    func messageTaken() {
        let notify = state.withLock { state -> (@Sendable () -> Void)? in
            state.taken += 1
            return state.taken == 1 ? state.notify : nil
        }
        notify?()
    }

    /// The messages taken since the last call; starts a new batch.
    func takeCount() -> Int {
        state.withLock { state in
            defer { state.taken = 0 }
            return state.taken
        }
    }
}
