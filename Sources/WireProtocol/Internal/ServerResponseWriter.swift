import Synchronization

/// The `ResponseWriter` of one server call.
///
/// Shared between the handler task and the loop: the byte count behind the backpressure, the
/// metadata and the closed state live under a mutex; the bytes themselves go to the loop.
final class ServerResponseWriter: ResponseWriter, @unchecked Sendable {
    private struct State {
        var initialMetadata = Metadata()
        var trailingMetadata = Metadata()
        var initialSent = false
        var messagesWritten = 0
        var queuedBytes = 0
        var streamEncoding: CompressionAlgorithm?
        var waiter: CheckedContinuation<Void, any Error>?
        var closedError: RPCError?
        /// A unary response waits here and leaves with the status, in one hand-over to the loop.
        var unaryResponse: [UInt8]?
    }

    private let state = Mutex(State())
    private let connection: ServerConnection
    /// Touched only on the connection's loop: writes hand their bytes over with `loop.execute`.
    private let stream: LoopBound<ServerStream>
    let kind: ServerMethod.Kind
    /// Unary and client-streaming calls have one response, which leaves with the status.
    private let holdsOneResponse: Bool
    private let accepted: [CompressionAlgorithm]
    private let defaultCompression: CompressionAlgorithm
    private let highWater: Int

    init(
        connection: ServerConnection, stream: ServerStream, kind: ServerMethod.Kind, accepted: [CompressionAlgorithm],
        defaultCompression: CompressionAlgorithm, highWater: Int
    ) {
        self.connection = connection
        self.stream = LoopBound(stream, loop: connection.loop)
        self.kind = kind
        holdsOneResponse = kind == .unary || kind == .clientStreaming
        self.accepted = accepted
        self.defaultCompression = defaultCompression
        self.highWater = highWater
    }

    func setInitialMetadata(_ metadata: Metadata) {
        state.withLock { $0.initialMetadata = metadata }
    }

    func setTrailingMetadata(_ metadata: Metadata) {
        state.withLock { $0.trailingMetadata = metadata }
    }

    nonisolated(nonsending) func write(_ message: [UInt8], compression: CompressionAlgorithm?) async throws {
        let algorithm = Self.algorithm(compression, default: defaultCompression, accepted: accepted)
        // The stream's grpc-encoding is fixed by the first compressed write; a later message in
        // another algorithm goes uncompressed.
        let chosen = state.withLock { state -> CompressionAlgorithm in
            if algorithm == .identity { return .identity }
            if state.initialSent && state.streamEncoding != algorithm { return .identity }
            return algorithm
        }
        let framed = try Self.frame(message, compression: chosen)
        let (initial, encoding, mustWait) = try state.withLock {
            state throws(RPCError) -> (Metadata?, CompressionAlgorithm?, Bool) in
            if let error = state.closedError { throw error }
            if holdsOneResponse && state.messagesWritten >= 1 {
                throw RPCError(code: .internalError, message: "a unary handler wrote more than one response")
            }
            state.messagesWritten += 1
            if holdsOneResponse {
                state.unaryResponse = framed
                state.streamEncoding = chosen == .identity ? nil : chosen
                return (nil, nil, false)
            }
            state.queuedBytes += framed.count
            var initial: Metadata?
            if !state.initialSent {
                state.initialSent = true
                state.streamEncoding = chosen == .identity ? nil : chosen
                initial = state.initialMetadata
            }
            return (initial, state.streamEncoding, state.queuedBytes > highWater)
        }
        if holdsOneResponse { return }
        let connection = self.connection
        let stream = self.stream
        if connection.loop.inLoop {
            // Still inside an inline-started handler: keep the order with the completion, which
            // is also handled directly.
            connection.enqueue(stream.value, bytes: framed, initialMetadata: initial, encoding: encoding)
        } else {
            connection.loop.execute {
                connection.enqueue(stream.value, bytes: framed, initialMetadata: initial, encoding: encoding)
            }
        }
        if mustWait { try await waitForDrain() }
    }

    private nonisolated(nonsending) func waitForDrain() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result = state.withLock { state -> Result<Void, any Error>? in
                    if let error = state.closedError { return .failure(error) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.queuedBytes <= highWater / 2 { return .success(()) }
                    state.waiter = continuation
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The algorithm a message goes out in: the one asked for, else the server default, and
    /// identity when the client did not list it in `grpc-accept-encoding`.
    static func algorithm(
        _ requested: CompressionAlgorithm?, default defaultCompression: CompressionAlgorithm,
        accepted: [CompressionAlgorithm]
    ) -> CompressionAlgorithm {
        let algorithm = requested ?? defaultCompression
        return algorithm == .identity || accepted.contains(algorithm) ? algorithm : .identity
    }

    /// One response message with its length prefix, compressed with `compression`.
    ///
    /// - Throws: `RPCError` INTERNAL when compression fails.
    static func frame(_ message: [UInt8], compression: CompressionAlgorithm) throws(RPCError) -> [UInt8] {
        do {
            return try Envelope.frame(message, compression: compression)
        } catch {
            throw RPCError(code: .internalError, message: "compression failed", cause: error)
        }
    }

    /// Records that the loop handed `count` bytes to nghttp2; resumes a waiting writer below the
    /// low-water mark. Loop thread.
    func drained(_ count: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.queuedBytes -= count
            guard state.queuedBytes <= highWater / 2 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends the writer: later writes, and a waiting one, throw `error`.
    func close(_ error: RPCError) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.closedError == nil { state.closedError = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// The handler has returned: how many messages it wrote, the trailing metadata, and the
    /// initial metadata if no message carried it.
    func finish() -> Completion {
        state.withLock { state in
            let initial = state.initialSent ? nil : state.initialMetadata
            state.initialSent = true
            if state.closedError == nil {
                state.closedError = RPCError(code: .internalError, message: "call already ended")
            }
            let response = state.unaryResponse
            state.unaryResponse = nil
            return Completion(
                messages: state.messagesWritten, trailing: state.trailingMetadata, unsentInitial: initial,
                unaryResponse: response, encoding: state.streamEncoding)
        }
    }

    /// What the handler left behind when it returned.
    struct Completion {
        var messages: Int
        var trailing: Metadata
        /// The initial metadata, if no message carried it yet.
        var unsentInitial: Metadata?
        /// A unary call's framed response, sent together with the status.
        var unaryResponse: [UInt8]?
        var encoding: CompressionAlgorithm?
    }
}
