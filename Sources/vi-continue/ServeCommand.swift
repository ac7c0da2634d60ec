import ArgumentParsing
import ContinueService
import Dispatch
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
                help: "Sessions: sqlite (default), sqlite:PATH, memory, redis://HOST:PORT[/DB] or redis+unix:///PATH."),
            OptionSpec(
                "state-dir", valueName: "DIR",
                help: "Where the SQLite sessions live (default $XDG_STATE_HOME/vi-continue, else .vi-continue)."),
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

        let setup: ServiceSetup
        do {
            setup = try ServiceSetup.load(settings)
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        writeError("vi-continue: \(setup.description)")
        let health = HealthService()
        let service = VisualSearchService(sessions: setup.sessions, router: setup.router)
        let server = GRPCServer(configuration: configuration, methods: health.methods + service.methods)
        let signals = ShutdownSignals {
            health.stopWatching()
            server.beginGracefulShutdown()
        }
        defer { signals.cancel() }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                let addresses = try await server.waitUntilListening()
                var where_ = ["\(host):\(addresses.tcpPort ?? port)"]
                if let path = addresses.unixSocketPath { where_.append("unix:\(path)") }
                writeError("vi-continue: serving on \(where_.joined(separator: " and "))")
                try await group.waitForAll()
            }
        } catch {
            writeError("error: \(error)")
            return ExitCode.rpcFailure
        }
        writeError("vi-continue: stopped")
        return ExitCode.ok
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
