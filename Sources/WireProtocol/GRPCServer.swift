internal import CNghttp2
internal import Glibc
import Synchronization

/// The addresses a running server listens on.
public struct ListeningAddresses: Sendable, Hashable {
    /// The bound TCP port, when listening on TCP (the real port when 0 was asked for).
    public var tcpPort: Int?
    /// The Unix-domain socket path, when listening on one.
    public var unixSocketPath: String?
}

/// A gRPC server over HTTP/2 cleartext, on TCP and/or a Unix-domain socket.
///
/// ```swift
/// let server = GRPCServer(configuration: .init(tcp: .init(host: "127.0.0.1", port: 0)), methods: [
///     ServerMethod(path: "/echo.Echo/Get", kind: .unary) { request, context, writer in
///         try await writer.write(request)
///     }
/// ])
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await server.run() }
///     let port = try await server.waitUntilListening().tcpPort!
///     // ...
///     server.beginGracefulShutdown()
/// }
/// ```
public final class GRPCServer: Sendable {
    let core: ServerCore

    /// Creates a server; nothing happens until `run()`.
    ///
    /// - Parameters:
    ///   - configuration: Addresses and limits.
    ///   - methods: The methods served; a later method with the same path replaces an earlier one.
    public init(configuration: ServerConfiguration, methods: [ServerMethod]) {
        core = ServerCore(configuration: configuration, methods: methods)
    }

    /// Binds, serves until cancelled or `beginGracefulShutdown()`, drains in-flight calls, then
    /// returns.
    ///
    /// Cancelling the calling task starts a graceful shutdown.
    ///
    /// - Throws: `TransportError` when an address cannot be bound.
    public func run() async throws {
        try core.start()
        await withTaskCancellationHandler {
            await core.waitUntilDrained()
        } onCancel: {
            core.beginShutdown()
        }
        core.stopLoops()
    }

    /// Waits until the server listens.
    ///
    /// - Returns: The bound addresses.
    /// - Throws: `TransportError` if binding failed.
    public func waitUntilListening() async throws -> ListeningAddresses {
        try await core.waitUntilListening()
    }

    /// Client connections open now, HTTP/2 and HTTP/1.1 alike.
    public var openConnections: Int { core.openConnections }

    /// Starts a graceful shutdown: stop accepting, send GOAWAY, let in-flight calls finish.
    public func beginGracefulShutdown() {
        core.beginShutdown()
    }
}

/// The server's state shared between the `run()` task and the event loops.
final class ServerCore: @unchecked Sendable {
    private enum Phase {
        case idle
        case running
        case failed(TransportError)
        case stopped
    }

    private struct State {
        var phase = Phase.idle
        var shuttingDown = false
        var openListeners = 0
        var connections = 0
        var addresses: ListeningAddresses?
        var listeningWaiters: [CheckedContinuation<ListeningAddresses, any Error>] = []
        var drainedWaiter: CheckedContinuation<Void, Never>?
        var drained = false
        /// The loops exist and listen; until then a shutdown is left to `start()`.
        var loopsReady = false
    }

    let configuration: ServerConfiguration
    let methods: MethodTable
    let acceptEncodingHeader: String
    /// The response headers of a call that sets no metadata and compresses nothing.
    let plainResponseHeaders: FixedHeaders
    /// The trailers of a call that ends OK without trailing metadata.
    let okTrailers = FixedHeaders([("grpc-status", "0")])
    /// Where handlers that may block run (no thread until one does).
    let blockingExecutor: BlockingExecutor
    private let state = Mutex(State())
    private(set) var loops: [EventLoop] = []
    private let nextLoop = Atomic<Int>(0)

    init(configuration: ServerConfiguration, methods: [ServerMethod]) {
        self.configuration = configuration
        self.methods = MethodTable(methods)
        blockingExecutor = BlockingExecutor(maximumThreads: max(1, configuration.maxBlockingThreads))
        var encodings = configuration.enabledCompression
        if !encodings.contains(.identity) { encodings.insert(.identity, at: 0) }
        acceptEncodingHeader = encodings.map(\.name).joined(separator: ",")
        plainResponseHeaders = FixedHeaders([
            (":status", "200"), ("content-type", "application/grpc"), ("grpc-accept-encoding", acceptEncodingHeader),
        ])
    }

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    var openConnections: Int { state.withLock { $0.connections } }

    func start() throws {
        _ = Socket.ignoreSIGPIPE
        let alreadyRunning = state.withLock { state -> Bool in
            guard case .idle = state.phase else { return true }
            state.phase = .running
            return false
        }
        if alreadyRunning {
            throw TransportError(code: .alreadyRunning, message: "a GRPCServer runs once")
        }
        var listenerFDs: [(Int32, String?)] = []
        var addresses = ListeningAddresses()
        do {
            if let tcp = configuration.tcp {
                let (fd, port) = try Socket.listenTCP(host: tcp.host, port: tcp.port)
                listenerFDs.append((fd, nil))
                addresses.tcpPort = port
            }
            if let path = configuration.unixSocketPath {
                let fd = try Socket.listenUnix(path: path)
                listenerFDs.append((fd, path))
                addresses.unixSocketPath = path
            }
        } catch {
            for (fd, _) in listenerFDs { close(fd) }
            let waiters = state.withLock { state in
                state.phase = .failed(error)
                defer { state.listeningWaiters = [] }
                return state.listeningWaiters
            }
            for waiter in waiters { waiter.resume(throwing: error) }
            throw error
        }
        let count = max(1, configuration.eventLoopCount)
        loops = (0..<count).map {
            EventLoop(name: "wire-server-\($0)", busyPollWindow: max(.zero, configuration.busyPollWindow))
        }
        for loop in loops { loop.start() }
        let acceptLoop = loops[0]
        let fds = listenerFDs
        let waiters = state.withLock { state in
            state.openListeners = fds.count
            state.addresses = addresses
            defer { state.listeningWaiters = [] }
            return state.listeningWaiters
        }
        acceptLoop.execute { [self] in
            for (fd, path) in fds {
                let listener = Listener(fd: fd, unixPath: path, loop: acceptLoop) { [self] fd, peer in
                    accepted(fd: fd, peer: peer)
                }
                acceptLoop.register(fd, handler: listener, events: EPOLLIN.rawValue)
            }
            if isShuttingDown { closeListeners(on: acceptLoop) }
        }
        for waiter in waiters { waiter.resume(returning: addresses) }
        let shutdownRequested = state.withLock { state -> Bool in
            state.loopsReady = true
            return state.shuttingDown
        }
        if shutdownRequested { shutdownLoops() }
    }

    func waitUntilListening() async throws -> ListeningAddresses {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<ListeningAddresses, TransportError>? in
                if case .failed(let error) = state.phase { return .failure(error) }
                if let addresses = state.addresses { return .success(addresses) }
                state.listeningWaiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    private func accepted(fd: Int32, peer: String) {
        let admitted = state.withLock { state -> Bool in
            if state.connections >= configuration.maxConnections || state.shuttingDown { return false }
            state.connections += 1
            return true
        }
        guard admitted else {
            close(fd)
            return
        }
        let loop = loops[nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
        loop.execute { [self] in
            let connection = ServerConnection(fd: fd, loop: loop, core: self, peer: peer)
            connection.start()
            if isShuttingDown { connection.startGoaway() }
        }
    }

    /// Calls running now per peer (see ``peerKey(_:)``), while a cap is configured.
    private let callsByPeer = Mutex<[String: Int]>([:])

    /// Counts a call of `peer` as running and returns `true`, or returns `false` when the peer
    /// already has the configured most; a counted call must end with ``callEnded(peer:)``.
    func admitCall(peer: String) -> Bool {
        guard let cap = configuration.maxConcurrentCallsPerPeer else { return true }
        return callsByPeer.withLock { running in
            let now = running[peer, default: 0]
            guard now < cap else { return false }
            running[peer] = now + 1
            return true
        }
    }

    /// Ends a call ``admitCall(peer:)`` counted.
    func callEnded(peer: String) {
        guard configuration.maxConcurrentCallsPerPeer != nil else { return }
        callsByPeer.withLock { running in
            let left = running[peer, default: 1] - 1
            running[peer] = left > 0 ? left : nil
        }
    }

    /// The task executor a handler of `method` runs on: the blocking pool for `.mayBlock`, none
    /// (the cooperative pool) otherwise.
    func executor(for method: ServerMethod) -> (any TaskExecutor)? {
        method.execution == .mayBlock ? blockingExecutor : nil
    }

    /// The peer a connection's calls count against: its address without the port ("ipv4:1.2.3.4",
    /// "ipv6:[::1]"); every Unix-socket client is one peer ("unix").
    static func peerKey(_ peer: String) -> String {
        if peer.hasPrefix("unix:") { return "unix" }
        guard let colon = peer.lastIndex(of: ":"), peer.firstIndex(of: ":") != colon else { return peer }
        return String(peer[..<colon])
    }

    func connectionClosed() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.connections -= 1
            return takeDrainedWaiter(&state)
        }
        waiter?.resume()
    }

    private func takeDrainedWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard state.shuttingDown, state.openListeners == 0, state.connections == 0 else { return nil }
        state.drained = true
        defer { state.drainedWaiter = nil }
        return state.drainedWaiter
    }

    private func closeListeners(on loop: EventLoop) {
        var closed = 0
        loop.forEachHandler { handler in
            if let listener = handler as? Listener {
                listener.close()
                if let path = listener.unixPath { unlink(path) }
                closed += 1
            }
        }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.openListeners -= closed
            return takeDrainedWaiter(&state)
        }
        waiter?.resume()
    }

    func beginShutdown() {
        enum Next { case nothing, shutdownLoops, drainNow }
        let next = state.withLock { state -> Next in
            if state.shuttingDown { return .nothing }
            state.shuttingDown = true
            if state.loopsReady { return .shutdownLoops }
            if case .running = state.phase { return .nothing }  // start() will see the request
            return .drainNow
        }
        switch next {
        case .nothing:
            break
        case .drainNow:
            // Not started (or failed): there is nothing to drain.
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in takeDrainedWaiter(&state) }
            waiter?.resume()
        case .shutdownLoops:
            shutdownLoops()
        }
    }

    /// Closes the listeners and sends GOAWAY on every connection; after the grace period, if
    /// one is set, closes whatever is still open (cancelling its handlers).
    private func shutdownLoops() {
        let gracePeriod = configuration.shutdownGracePeriod
        for (index, loop) in loops.enumerated() {
            loop.execute { [self] in
                if index == 0 { closeListeners(on: loop) }
                loop.forEachHandler { handler in
                    (handler as? any ServedConnection)?.beginDraining()
                }
                if let gracePeriod {
                    loop.schedule(at: .now + gracePeriod) {
                        loop.forEachHandler { handler in
                            (handler as? any ServedConnection)?.close()
                        }
                    }
                }
            }
        }
    }

    func waitUntilDrained() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.drained { return true }
                if state.shuttingDown, state.openListeners == 0, state.connections == 0 {
                    state.drained = true
                    return true
                }
                state.drainedWaiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    func stopLoops() {
        for loop in loops { loop.stopAndJoin() }
        state.withLock { $0.phase = .stopped }
    }
}
