import ArgumentParsing
import ContinueService
import Dispatch
import SearchSession
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
        options: [
            OptionSpec("host", valueName: "ADDR", help: "The TCP address to listen on (default 127.0.0.1)."),
            OptionSpec("port", valueName: "PORT", help: "The TCP port; 0 picks a free one (default 50051)."),
            OptionSpec(
                "unix-socket", valueName: "PATH",
                help: "The Unix socket path; 'none' disables it (default $XDG_RUNTIME_DIR or /tmp, vi-continue.sock)."),
            OptionSpec("catalog", valueName: "FILE", help: "The catalog, JSON Lines (default: the bundled demo)."),
            OptionSpec("routes", valueName: "FILE", help: "The route table, JSON (default: the bundled demo)."),
            OptionSpec(
                "store", valueName: "STORE",
                help:
                    "Sessions: sqlite (default), sqlite:PATH, memory (catalog writes in memory too), redis://HOST:PORT[/DB] or redis+unix:///PATH."
            ),
            OptionSpec(
                "state-dir", valueName: "DIR",
                help:
                    "Where SQLite sessions and the catalog write log live (default $XDG_STATE_HOME/vi-continue, else .vi-continue)."
            ),
            OptionSpec(
                "session-ttl", valueName: "SECONDS",
                help: "How long a captured session can be continued (default 86400, one day)."),
            OptionSpec(
                "purge-interval", valueName: "SECONDS",
                help: "How often expired sessions are deleted from the store (default 60)."),
            OptionSpec(
                "max-sessions", valueName: "N",
                help: "With --store memory: the most sessions kept, oldest dropped first (default 100000)."),
            OptionSpec(
                "reload-interval", valueName: "SECONDS",
                help: "How often to look for a changed catalog file; 0 reloads on SIGHUP only (default 2)."),
            OptionSpec(
                "max-connections", valueName: "N",
                help: "Connections served at once; more are closed on accept (default 10000)."),
            OptionSpec(
                "max-streams-per-connection", valueName: "N",
                help: "Concurrent calls per connection; more are refused (default 100)."),
            OptionSpec(
                "idle-timeout", valueName: "SECONDS",
                help: "Close connections without calls after this long, with GOAWAY; 0 never (default 300)."),
            OptionSpec(
                "busy-poll", valueName: "MICROSECONDS",
                help: "Poll up to this long after I/O while calls keep coming that soon; 0 never (default 100)."),
            OptionSpec(
                "query-cache", valueName: "N",
                help: "Recent Query answers kept for repeated requests until the catalog changes; 0 off (default 512)."),
            OptionSpec("log-level", valueName: "LEVEL", help: "error, warn, info (default) or debug."),
        ])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let settings = Settings(arguments)
        guard let port = Int(settings.value("port") ?? "50051"), (0...65535).contains(port) else {
            writeError("error: --port must be a number from 0 to 65535")
            return ExitCode.usage
        }
        let host = settings.value("host") ?? "127.0.0.1"
        var configuration = ServerConfiguration(tcp: .init(host: host, port: port))
        let socket = settings.value("unix-socket") ?? defaultSocketPath()
        configuration.unixSocketPath = socket == "none" ? nil : socket
        do {
            try applyLimits(settings, to: &configuration)
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        raiseDescriptorLimit()
        SearchEngine.boundAllocatorRetention()

        guard let reloadSeconds = Double(settings.value("reload-interval") ?? "2"), reloadSeconds >= 0 else {
            writeError("error: --reload-interval must be a number of seconds, 0 or more")
            return ExitCode.usage
        }

        let queryCacheText = settings.value("query-cache") ?? String(VisualSearchService.defaultQueryCacheEntries)
        guard let queryCacheEntries = Int(queryCacheText), (0...1_000_000).contains(queryCacheEntries) else {
            writeError("error: --query-cache must be a whole number of answers from 0 to 1000000")
            return ExitCode.usage
        }

        let setup: ServiceSetup
        do {
            setup = try ServiceSetup.load(settings)
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        writeError("vi-continue: \(setup.description)")
        let reloader = CatalogReloader(
            path: setup.catalogPath, engine: setup.sessions.engine,
            pollInterval: reloadSeconds > 0 ? .milliseconds(Int(reloadSeconds * 1000)) : nil)
        defer { reloader.cancel() }
        let health = HealthService()
        let service = VisualSearchService(
            sessions: setup.sessions, router: setup.router, queryCacheEntries: queryCacheEntries)
        let server = GRPCServer(configuration: configuration, methods: health.methods + service.methods)
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

    /// The longest busy-poll window `serve` uses unless told otherwise, in microseconds.
    static let defaultBusyPollMicroseconds = 100

    /// Reads the connection limits and the log level into `configuration`.
    ///
    /// - Throws: `ServiceSetup.Failure` naming the option whose value does not fit.
    static func applyLimits(_ settings: Settings, to configuration: inout ServerConfiguration) throws {
        func count(_ name: String, default value: Int) throws -> Int {
            guard let text = settings.value(name) else { return value }
            guard let number = Int(text), number >= 1, number <= Int(Int32.max) else {
                throw ServiceSetup.Failure(description: "--\(name) must be a whole number from 1 to 2147483647")
            }
            return number
        }
        configuration.maxConnections = try count("max-connections", default: 10_000)
        configuration.maxConcurrentStreams = try count("max-streams-per-connection", default: 100)
        let idleText = settings.value("idle-timeout") ?? "300"
        guard let idle = Double(idleText), idle >= 0, idle < 1e9 else {
            throw ServiceSetup.Failure(description: "--idle-timeout must be a number of seconds, 0 or more")
        }
        configuration.idleTimeout = idle == 0 ? nil : .milliseconds(max(1, Int((idle * 1000).rounded())))
        // On by default for `serve`: the window adapts to the traffic, so a quiet or sparse
        // server sleeps at once, while back-to-back calls skip the loop's wake-up latency.
        let busyPollText = settings.value("busy-poll") ?? String(Self.defaultBusyPollMicroseconds)
        guard let busyPoll = Int(busyPollText), (0...1_000_000).contains(busyPoll) else {
            throw ServiceSetup.Failure(
                description: "--busy-poll must be a whole number of microseconds from 0 to 1000000")
        }
        configuration.busyPollWindow = .microseconds(busyPoll)
        let levelName = settings.value("log-level") ?? "info"
        guard let level = CallLog.Level(name: levelName) else {
            throw ServiceSetup.Failure(
                description: "--log-level must be error, warn, info or debug (got '\(levelName)')")
        }
        configuration.callObserver = CallLog(level: level).observer
    }

    /// Raises the soft limit on open files to the hard limit, so thousands of connections
    /// do not run into the usual soft limit of 1024.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func defaultSocketPath() -> String {
        let directory = Settings.environment("XDG_RUNTIME_DIR") ?? "/tmp"
        return directory + "/vi-continue.sock"
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
