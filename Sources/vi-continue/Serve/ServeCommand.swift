import ArgumentParsing
import ContinueService
import Dispatch
import Foundation
import SearchAPI
import SearchSession
import Synchronization
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// `vi-continue serve`: the gRPC service on its embedded defaults.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Run the gRPC service (TCP and a Unix socket) until SIGTERM or SIGINT.",
        discussion: """
            Every option can also be set by an environment variable, VI_CONTINUE_<OPTION> with
            dashes as underscores (VI_CONTINUE_PORT=6000); a flag wins over the environment.

            EXAMPLES:
              vi-continue serve
              vi-continue serve --port 6000 --unix-socket /tmp/vi.sock
              vi-continue serve --catalog my.jsonl --routes my-routes.json --store memory
              vi-continue serve --max-connections 2000 --idle-timeout 60 --log-level warn

            Each finished call logs one line to stderr: method, status, latency and request id
            (the client's x-request-id, else a generated one). --log-level info (the default) logs
            every call; warn only failures an operator may act on (DEADLINE_EXCEEDED, UNAVAILABLE,
            RESOURCE_EXHAUSTED, ...); error only server faults (INTERNAL, UNKNOWN, UNIMPLEMENTED,
            DATA_LOSS); debug adds the peer address.
            """,
        options: ServeOptions.specs)

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let settings = Settings(arguments)
        let host: String
        let port: Int
        let socket: String
        let reloadSeconds: Double
        let queryCacheEntries: Int
        let evaluationCacheMiB: Int
        let writeToken: WriteToken?
        var configuration: ServerConfiguration
        do {
            host = try settings.value(ServeOptions.host)
            port = try settings.value(ServeOptions.port)
            socket = try settings.value(ServeOptions.unixSocket) ?? ServeOptions.defaultUnixSocketPath()
            reloadSeconds = try settings.value(ServeOptions.reloadInterval)
            queryCacheEntries = try settings.value(ServeOptions.queryCache)
            evaluationCacheMiB = try settings.value(ServeOptions.evaluationCache)
            writeToken = try loadWriteToken(settings)
            configuration = ServerConfiguration(tcp: .init(host: host, port: port))
            configuration.unixSocketPath = socket == "none" ? nil : socket
            try applyLimits(settings, to: &configuration)
        } catch let error as WriteTokenError {
            writeError("error: --write-token-file: \(error)")
            return ExitCode.usage
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        raiseDescriptorLimit()
        SearchEngine.boundAllocatorRetention()

        let health = HealthService()
        // Not serving until loaded; with a shared catalog, until caught up with it (the replica
        // says so, possibly before `load` returns).
        health.setStatus(.notServing)
        let setup: ServiceSetup
        do {
            setup = try ServiceSetup.load(settings) { caughtUp in
                // A load balancer sends no calls to an instance that lags the shared catalog.
                health.setStatus(caughtUp ? .serving : .notServing)
                writeError(
                    caughtUp
                        ? "vi-continue: caught up with the shared catalog: SERVING"
                        : "vi-continue: behind the shared catalog: NOT_SERVING")
            }
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        setup.sessions.engine.limitEvaluationCache(toBytes: evaluationCacheMiB << 20)
        StartupCode.release()
        if setup.replica == nil { health.setStatus(.serving) }
        defer { setup.replica?.stop() }
        writeError("vi-continue: \(setup.description)")
        if writeToken == nil, !isLoopback(host) {
            writeError(
                "vi-continue: warning: listening on \(host) with no --write-token-file: TCP clients can read, "
                    + "and catalog writes are refused over TCP (the Unix socket still takes them)")
        }
        // A catalog shared through Redis changes through the shared log only: every instance
        // must apply the same changes to the same baseline, so the file is read at start.
        let reloader =
            setup.replica != nil
            ? nil
            : CatalogReloader(
                path: setup.catalogPath, engine: setup.sessions.engine,
                pollInterval: reloadSeconds > 0 ? .milliseconds(Int(reloadSeconds * 1000)) : nil)
        if setup.replica != nil { signal(SIGHUP, SIG_IGN) }
        defer { reloader?.cancel() }
        let web: WebConfiguration
        do {
            web = try webConfiguration(settings, catalogPath: setup.catalogPath)
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        configuration.web = web
        let serverHolder = Mutex<GRPCServer?>(nil)
        let metrics = ServeMetrics(engine: setup.sessions.engine, store: setup.sessions.store) {
            serverHolder.withLock { $0?.openConnections ?? 0 }
        }
        let log = configuration.callObserver
        configuration.callObserver = { record in
            log?(record)
            metrics.observe(record)
        }
        configuration.web.metrics = { metrics.text() }
        let service = VisualSearchService(
            sessions: setup.sessions, router: setup.router, queryCacheEntries: queryCacheEntries,
            writeGuard: WriteGuard(token: writeToken), catalogWriter: setup.catalogWriter)
        let server = GRPCServer(
            configuration: configuration, methods: health.methods + service.methods + ReflectionService().methods)
        serverHolder.withLock { $0 = server }
        let signals = ShutdownSignals {
            health.stopWatching()
            server.beginGracefulShutdown()
        }
        defer { signals.cancel() }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                // Expired sessions are deleted for as long as the server runs, so the store
                // (and, for `memory`, the process) does not grow with every Capture ever made.
                group.addTask { await setup.sessions.run(every: setup.purgeInterval) }
                group.addTask { await SearchEngine.returnFreeMemory(every: .seconds(5)) }
                let addresses = try await server.waitUntilListening()
                var where_ = ["\(host):\(addresses.tcpPort ?? port)"]
                if let path = addresses.unixSocketPath { where_.append("unix:\(path)") }
                writeError("vi-continue: serving on \(where_.joined(separator: " and "))")
                // The server finishes first (the purge loop runs until cancelled); then stop the rest.
                try await group.next()
                group.cancelAll()
            }
        } catch {
            writeError("error: \(error)")
            return ExitCode.rpcFailure
        }
        writeError("vi-continue: stopped")
        return ExitCode.ok
    }

    /// What the port serves to browsers and `curl`: the web shell at `/`, the catalog's images,
    /// and the origins allowed to call.
    static func webConfiguration(_ settings: Settings, catalogPath: String) throws -> WebConfiguration {
        var web = WebConfiguration()
        if let origins = try settings.value(ServeOptions.allowOrigin) {
            web.allowedOrigins = Set(
                origins.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) })
        }
        if let directory = WebShell.directory() {
            web.files = WebShell.files(in: directory)
        } else {
            writeError("vi-continue: warning: the web shell (Examples/web) was not found; / answers 404")
        }
        let images = CatalogImages(catalogPath: catalogPath)
        web.fileLookup = { images.file(at: $0) }
        return web
    }

    /// Reads the connection limits and the log level into `configuration`.
    ///
    /// - Throws: `OptionValueError` naming the option whose value does not fit.
    static func applyLimits(_ settings: Settings, to configuration: inout ServerConfiguration) throws(OptionValueError)
    {
        configuration.maxConnections = try settings.value(ServeOptions.maxConnections)
        configuration.maxConcurrentStreams = try settings.value(ServeOptions.maxStreamsPerConnection)
        configuration.maxConcurrentCallsPerPeer = try settings.value(ServeOptions.maxCallsPerPeer)
        let idle = try settings.value(ServeOptions.idleTimeout)
        configuration.idleTimeout = idle == 0 ? nil : .milliseconds(max(1, Int((idle * 1000).rounded())))
        configuration.busyPollWindow = .microseconds(try settings.value(ServeOptions.busyPoll))
        // The choice's values are the level names, so this always finds one.
        let level = CallLog.Level(name: try settings.value(ServeOptions.logLevel)) ?? .info
        configuration.callObserver = CallLog(level: level).observer
    }

    /// The write token from `--write-token-file`, if one is given; warns when others may read it.
    private static func loadWriteToken(_ settings: Settings) throws -> WriteToken? {
        guard let path = try settings.value(ServeOptions.writeTokenFile) else { return nil }
        let token = try WriteToken(contentsOfFile: path)
        if WriteToken.isReadableByOthers(path) {
            writeError("vi-continue: warning: the token file \(path) can be read by other users (chmod 600 it)")
        }
        return token
    }

    /// Whether `host` only accepts connections from this machine.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Raises the soft limit on open files to the hard limit, so thousands of connections
    /// do not run into the usual soft limit of 1024.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// Turns SIGTERM and SIGINT into one call of a shutdown action.
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "vi-continue.signals")
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
