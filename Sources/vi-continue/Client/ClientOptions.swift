import ArgumentParsing
import ContinueService
import DeepLinkRouter
import SearchSession
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The options client commands share, and how they pick where calls go.
enum ClientOptions {
    static let defaultServer = "127.0.0.1:50051"

    static let server = OptionSpec(
        "server", valueName: "ADDR", help: "host:port or unix:PATH of a server (default \(defaultServer)).")
    static let timeout = OptionSpec(
        "timeout", valueName: "SECONDS",
        help: "Give up on a call after this long (default 10); connecting gets at most 2 s.")
    static let catalog = OptionSpec(
        "catalog", valueName: "FILE", help: "Work in-process on this JSON Lines catalog instead of a server.")
    static let routes = OptionSpec(
        "routes", valueName: "FILE", help: "The route table, JSON (default: the bundled demo table).")
    static let json = FlagSpec("json", help: "Print one JSON object instead of a table.")
    static let writerServer = OptionSpec(
        "server", valueName: "ADDR",
        help:
            "host:port or unix:PATH of a server (default: serve's Unix socket when it is there, else \(defaultServer))."
    )
    static let tokenFile = OptionSpec(
        "token-file", valueName: "FILE",
        help: "Send the token in FILE as 'authorization: Bearer TOKEN'; TCP writes need it (serve --write-token-file).")

    /// The server options of every command that talks to a server.
    static let remote = [server, timeout]
    /// The server options of the commands that change the catalog.
    static let writer = [writerServer, timeout, tokenFile]

    /// The call timeout from `--timeout` (or `VI_CONTINUE_TIMEOUT`).
    static func callTimeout(_ settings: Settings) throws(CommandFailure) -> Duration {
        guard let seconds = Double(settings.value("timeout") ?? "10"), seconds > 0, seconds.isFinite else {
            throw .usage("--timeout must be a positive number of seconds")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// A connection to the server named by `--server` (or `VI_CONTINUE_SERVER`, or the default).
    ///
    /// - Parameter writing: For catalog writes: without `--server`, serve's Unix socket when it is
    ///   there (writes over it need no token) comes before the default address, and the token of
    ///   `--token-file` (or `VI_CONTINUE_TOKEN_FILE`) goes with every call.
    static func remoteBackend(_ arguments: ParsedArguments, writing: Bool = false) throws(CommandFailure)
        -> RemoteBackend
    {
        let settings = Settings(arguments)
        let timeout = try callTimeout(settings)
        var metadata: Metadata = [:]
        if writing, let path = settings.value("token-file") {
            do {
                let token = try WriteToken(contentsOfFile: path)
                metadata.add("authorization", "Bearer " + String(decoding: token.bytes, as: UTF8.self))
            } catch {
                throw .usage("--token-file: \(error)")
            }
        }
        let local = writing ? localSocketAddress() : nil
        return try RemoteBackend.connect(
            address: settings.value("server") ?? local ?? defaultServer, connectTimeout: min(timeout, .seconds(2)),
            callTimeout: timeout, metadata: metadata)
    }

    /// `unix:PATH` of serve's default socket when a socket is there.
    private static func localSocketAddress() -> String? {
        let path = ServeOptions.defaultUnixSocketPath()
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:" + path
    }

    /// The backend of search commands: in-process on `--catalog FILE`, else a server.
    static func searchBackend(_ arguments: ParsedArguments) throws(CommandFailure) -> any SearchBackend {
        guard arguments.value("catalog") != nil else { return try remoteBackend(arguments) }
        if arguments.value("server") != nil {
            throw .usage("--server and --catalog exclude each other: a server, or a catalog in this process")
        }
        let setup: ServiceSetup
        do {
            setup = try ServiceSetup.load(Settings(arguments), store: "memory")
        } catch {
            throw .usage("\(error)")
        }
        return InProcessBackend(service: VisualSearchService(sessions: setup.sessions, router: setup.router))
    }

    /// The backend of route commands: a server when `--server` is on the command line, else the
    /// route table (`--routes FILE` or the bundled demo) in this process.
    static func routeBackend(_ arguments: ParsedArguments) throws(CommandFailure) -> any SearchBackend {
        if arguments.value("server") != nil {
            if arguments.value("routes") != nil {
                throw .usage("--server and --routes exclude each other: the server uses its own route table")
            }
            return try remoteBackend(arguments)
        }
        let (router, _) = try loadRouter(Settings(arguments))
        let sessions = SearchSessions(engine: SearchEngine(entities: []), store: InMemorySessionStore())
        return InProcessBackend(service: VisualSearchService(sessions: sessions, router: router))
    }

    /// The route table from `--routes` or the bundled demo, and its path.
    static func loadRouter(_ settings: Settings) throws(CommandFailure) -> (Router, String) {
        let path = try routesPath(settings)
        do {
            return (Router(table: try RouteTable(contentsOfFile: path)), path)
        } catch {
            throw .usage("route table \(path): \(error.message)")
        }
    }

    /// `--routes`, else the bundled demo table.
    static func routesPath(_ settings: Settings) throws(CommandFailure) -> String {
        if let path = settings.value("routes") { return path }
        guard let demo = DemoData.directory() else {
            throw .usage("no --routes given and the bundled demo (Examples/demo) was not found")
        }
        return demo + "/routes.json"
    }
}
