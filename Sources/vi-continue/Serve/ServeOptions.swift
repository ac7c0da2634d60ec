import ArgumentParsing
import ContinueService
import SearchSession

/// Every option of `serve`, declared once: name, default, accepted values and help; `Settings`
/// reads each from its `VI_CONTINUE_<NAME>` variable too (dashes as underscores). The in-process client commands read
/// the catalog, routes and session options from here too.
enum ServeOptions {
    static let host = Option.text(
        "host", valueName: "ADDR", default: "127.0.0.1",
        summary: "The TCP address to listen on")
    static let port = Option.integer(
        "port", valueName: "PORT", in: 0...65535, default: 50051,
        summary: "The TCP port; 0 picks a free one")
    /// `nil` until the command runs: the default depends on `XDG_RUNTIME_DIR` then.
    static let unixSocket = Option<String?>.text(
        "unix-socket", valueName: "PATH", defaultDescription: "$XDG_RUNTIME_DIR or /tmp, vi-continue.sock",
        summary: "The Unix socket path; 'none' disables it")
    /// Where serve listens without `--unix-socket`, and where the catalog commands look for it:
    /// `VI_CONTINUE_UNIX_SOCKET` when set (so one variable points both at the same file), else
    /// `vi-continue.sock` in `XDG_RUNTIME_DIR`, else in /tmp.
    static func defaultUnixSocketPath() -> String {
        if let path = Settings.environment(Settings.variable(for: unixSocket.name)) { return path }
        return (Settings.environment("XDG_RUNTIME_DIR") ?? "/tmp") + "/vi-continue.sock"
    }
    static let catalog = Option<String?>.text(
        "catalog", valueName: "FILE", defaultDescription: "the bundled demo",
        summary: "The catalog, JSON Lines")
    static let routes = Option<String?>.text(
        "routes", valueName: "FILE", defaultDescription: "the bundled demo",
        summary: "The route table, JSON")
    static let store = Option.text(
        "store", valueName: "STORE", default: "sqlite",
        summary:
            "Sessions: sqlite, sqlite:PATH, memory (catalog writes in memory too), redis://HOST:PORT[/DB] or redis+unix:///PATH"
    )
    static let stateDirectory = Option<String?>.text(
        "state-dir", valueName: "DIR", defaultDescription: "$XDG_STATE_HOME/vi-continue, else .vi-continue",
        summary: "Where SQLite sessions, the catalog write log and the index live")
    static let today = Option<String?>.text(
        "today", valueName: "DATE", defaultDescription: "the clock's day (UTC)",
        summary: "The day, YYYY-MM-DD, from which events count as upcoming (a reproducible demo; tests)")
    static let sessionTimeToLive = Option.number(
        "session-ttl", valueName: "SECONDS", unit: "seconds", in: 1...1e9, default: 86_400,
        summary: "How long a captured session can be continued")
    static let purgeInterval = Option.number(
        "purge-interval", valueName: "SECONDS", unit: "seconds", in: 0.01...1e9, default: 60,
        summary: "How often expired sessions are deleted from the store")
    static let maxSessions = Option.integer(
        "max-sessions", in: 1...100_000_000, default: 100_000,
        summary: "With --store memory: the most sessions kept, oldest dropped first")
    static let reloadInterval = Option.number(
        "reload-interval", valueName: "SECONDS", unit: "seconds", in: 0...1e9, default: 2,
        summary: "How often to look for a changed catalog file; 0 reloads on SIGHUP only")
    static let maxConnections = Option.integer(
        "max-connections", in: 1...Int(Int32.max), default: 10_000,
        summary: "Connections served at once; more are closed on accept")
    static let maxStreamsPerConnection = Option.integer(
        "max-streams-per-connection", in: 1...Int(Int32.max), default: 100,
        summary: "Concurrent calls per connection; more are refused")
    static let maxCallsPerPeer = Option.integer(
        "max-calls-per-peer", in: 1...Int(Int32.max), default: 1_000,
        summary:
            "Calls one client address may have running at once, over all its connections; more are RESOURCE_EXHAUSTED")
    static let idleTimeout = Option.number(
        "idle-timeout", valueName: "SECONDS", unit: "seconds", in: 0...1e9, default: 300,
        summary: "Close connections without calls after this long, with GOAWAY; 0 never")
    /// On by default for `serve`: the window adapts to the traffic, so a quiet or sparse server
    /// sleeps at once, while back-to-back calls skip the loop's wake-up latency.
    static let busyPoll = Option.integer(
        "busy-poll", valueName: "MICROSECONDS", in: 0...1_000_000, default: 100,
        summary: "Poll up to this long after I/O while calls keep coming that soon; 0 never")
    static let queryCache = Option.integer(
        "query-cache", in: 0...1_000_000, default: VisualSearchService.defaultQueryCacheEntries,
        summary: "Recent Query answers kept for repeated requests until the catalog changes; 0 off")
    static let evaluationCache = Option.integer(
        "evaluation-cache", valueName: "MIB", in: 0...65_536, default: SearchEngine.defaultEvaluationCacheMiB,
        summary: "MiB of recent searches' rankings and facets kept for their next pages; 0 off")
    static let writeTokenFile = Option<String?>.text(
        "write-token-file", valueName: "FILE", defaultDescription: "none: catalog writes over the Unix socket only",
        summary: "A file holding the token TCP clients send as 'authorization: Bearer TOKEN' to change the catalog")
    static let allowOrigin = Option<String?>.text(
        "allow-origin", valueName: "ORIGINS", defaultDescription: "none: only pages this server serves",
        summary: "Web origins (comma-separated, e.g. https://app.example; * for any) whose pages may call the service")
    static let logLevel = Option.choice(
        "log-level", valueName: "LEVEL", among: CallLog.Level.names, default: "info",
        summary: "Which finished calls are logged: error, warn, info or debug")

    /// `serve`'s options in the order help lists them.
    static let specs = [
        host.spec, port.spec, unixSocket.spec, catalog.spec, routes.spec, store.spec, stateDirectory.spec,
        sessionTimeToLive.spec, purgeInterval.spec, maxSessions.spec, reloadInterval.spec, maxConnections.spec,
        maxStreamsPerConnection.spec, maxCallsPerPeer.spec, idleTimeout.spec, busyPoll.spec, queryCache.spec,
        evaluationCache.spec, writeTokenFile.spec, allowOrigin.spec, today.spec, logLevel.spec,
    ]
}
