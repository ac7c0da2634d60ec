internal import Synchronization

/// One call of a served method made from a web request (Connect or gRPC-Web): the
/// handler runs as for a gRPC call — on the loop when it is synchronous and small, in a task
/// otherwise — its messages are collected, and `finish` is told once, on the loop.
enum WebCall {
    /// How a call ended: the messages written and the status with its metadata.
    struct Outcome: Sendable {
        var messages: [[UInt8]]
        var status: Status
        var metadata: Metadata
    }

    /// Runs `method` with `request`; `finish` is called exactly once, on `loop`.
    static func run(
        _ method: ServerMethod, request: [UInt8], context: ServerContext, core: ServerCore, peerKey: String,
        loop: EventLoop, finish: @escaping @Sendable (Outcome) -> Void
    ) {
        let started = ContinuousClock.now
        let observed: @Sendable (Outcome) -> Void = { outcome in
            core.callEnded(peer: peerKey)
            core.configuration.callObserver?(
                CallRecord(
                    path: method.path, status: outcome.status, duration: .now - started,
                    requestMetadata: context.requestMetadata, peer: context.peer))
            finish(outcome)
        }
        guard core.admitCall(peer: peerKey) else {
            finish(
                Outcome(
                    messages: [],
                    status: Status(code: .resourceExhausted, message: "too many calls from this client at once"),
                    metadata: [:]))
            return
        }
        if let synchronous = method.synchronousHandler, method.execution == .onLoop,
            request.count <= ServerConnection.inlineRequestLimit
        {
            do {
                observed(Outcome(messages: [try synchronous(request, context)], status: .ok, metadata: [:]))
            } catch {
                observed(Outcome(messages: [], status: error.status, metadata: error.metadata))
            }
            return
        }
        let once = Mutex(false)
        let deliver: @Sendable (Outcome) -> Void = { outcome in
            let first = once.withLock { done in
                defer { done = true }
                return !done
            }
            guard first else { return }
            loop.execute { observed(outcome) }
        }
        let writer = CollectingResponseWriter()
        let task = Task(executorPreference: core.executor(for: method)) {
            assert(
                method.execution != .mayBlock || BlockingExecutor.isCurrentThreadBlocking,
                "\(method.path) may block: it must run on the blocking pool")
            var status = Status.ok
            var metadata: Metadata = [:]
            do {
                try await method.handler(request, context, writer)
            } catch {
                (status, metadata) = HandlerFailure.status(of: error, deadline: context.deadline)
            }
            var messages = writer.messages
            if status.code == .ok && method.kind == .unary && messages.count != 1 {
                status = Status(code: .internalError, message: "a unary handler must write exactly one response")
            }
            if status.code != .ok { messages = [] }
            deliver(Outcome(messages: messages, status: status, metadata: metadata.merging(writer.trailing)))
        }
        if let deadline = context.deadline {
            loop.execute {
                _ = loop.schedule(at: deadline) {
                    task.cancel()
                    deliver(
                        Outcome(
                            messages: [], status: Status(code: .deadlineExceeded, message: "deadline exceeded"),
                            metadata: [:]))
                }
            }
        }
    }
}

/// A response writer that keeps what a handler writes, for answers sent whole (HTTP/1.1).
final class CollectingResponseWriter: ResponseWriter {
    private let state = Mutex((messages: [[UInt8]](), trailing: Metadata()))

    var messages: [[UInt8]] { state.withLock { $0.messages } }
    var trailing: Metadata { state.withLock { $0.trailing } }

    func setInitialMetadata(_ metadata: Metadata) {}

    func write(_ message: [UInt8], compression: CompressionAlgorithm?) async throws {
        try Task.checkCancellation()
        state.withLock { $0.messages.append(message) }
    }

    func setTrailingMetadata(_ metadata: Metadata) {
        state.withLock { $0.trailing = metadata }
    }
}

extension Metadata {
    fileprivate func merging(_ other: Metadata) -> Metadata {
        var merged = self
        for entry in other { merged.add(entry.key, entry.value) }
        return merged
    }
}
