public import SearchAPI
import Synchronization
public import WireProtocol

/// `grpc.health.v1.Health`: Check and Watch over a table of service statuses.
///
/// The empty service name stands for the whole server. Watch streams end when the server shuts
/// down (``stopWatching()``), so they never hold up a graceful drain.
public final class HealthService: Sendable {
    public typealias ServingStatus = Health.CheckResponse.ServingStatus

    private struct Watcher {
        let service: String
        let continuation: AsyncStream<ServingStatus>.Continuation
    }

    private struct State {
        var statuses: [String: ServingStatus] = ["": .serving] {
            didSet { longestName = statuses.keys.map(\.utf8.count).max() ?? 0 }
        }
        /// The longest service name with a status: a longer one asked for is unknown without
        /// hashing it (a client's name of a megabyte took a millisecond to hash).
        var longestName = 0
        var watchers: [Int: Watcher] = [:]
        var nextWatcherID = 0
        var stopped = false
    }

    private let state = Mutex(State())

    /// Creates the service with the server marked SERVING.
    public init() {}

    /// Sets the status of a service and tells its watchers.
    public func setStatus(_ status: ServingStatus, for service: String = "") {
        let continuations = state.withLock { state in
            state.statuses[service] = status
            return state.watchers.values.filter { $0.service == service }.map(\.continuation)
        }
        for continuation in continuations { continuation.yield(status) }
    }

    /// Marks every service NOT_SERVING and ends every Watch call, for shutdown.
    public func stopWatching() {
        let continuations = state.withLock { state in
            state.stopped = true
            for key in state.statuses.keys { state.statuses[key] = .notServing }
            defer { state.watchers = [:] }
            return state.watchers.values.map(\.continuation)
        }
        for continuation in continuations {
            continuation.yield(.notServing)
            continuation.finish()
        }
    }

    /// The methods to serve.
    public var methods: [ServerMethod] {
        [
            .unaryOnLoop(MethodPaths.Health.check) {
                (request: Health.CheckRequest, _) throws(RPCError) -> Health.CheckResponse in
                guard
                    let status = self.state.withLock({ state in
                        request.service.utf8.count <= state.longestName ? state.statuses[request.service] : nil
                    })
                else {
                    throw RPCError(code: .notFound, message: "unknown service '\(request.service)'")
                }
                return Health.CheckResponse(status: status)
            },
            .serverStreaming(MethodPaths.Health.watch, execution: .onLoop) {
                (request: Health.CheckRequest, _, sink: MessageSink<Health.CheckResponse>) in
                for await status in self.watch(request.service) {
                    try await sink.send(Health.CheckResponse(status: status))
                }
            },
        ]
    }

    /// The current status of `service`, then each change, until ``stopWatching()`` or cancellation.
    private func watch(_ service: String) -> AsyncStream<ServingStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ServingStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLock { state in
            continuation.yield(state.statuses[service] ?? .serviceUnknown)
            if state.stopped { return nil }
            let id = state.nextWatcherID
            state.nextWatcherID += 1
            state.watchers[id] = Watcher(service: service, continuation: continuation)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}
