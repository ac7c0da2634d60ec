import SearchSession
import Synchronization
import WireProtocol

/// What `GET /metrics` reports, in the Prometheus text format (version 0.0.4): calls by method
/// and status, their latency as histograms, open connections, the catalog's version and size,
/// and the session store's counts (sessions stored, created, purged, by store kind) and, for
/// Redis, its failed commands.
final class ServeMetrics: Sendable {
    /// Latency bucket bounds in seconds: a sheet query takes well under a millisecond, a capture
    /// of a large catalog some milliseconds, anything past a second is a fault.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Series {
        var calls: [String: Int] = [:]  // status name → count
        var buckets: [Int]
        var count = 0
        var sum = 0.0
    }

    private let series = Mutex<[String: Series]>([:])
    private let engine: SearchEngine
    private let store: any SessionStore
    private let connections: @Sendable () -> Int

    init(engine: SearchEngine, store: any SessionStore, connections: @escaping @Sendable () -> Int) {
        self.engine = engine
        self.store = store
        self.connections = connections
    }

    /// Counts a finished call (install beside the call log in `callObserver`).
    func observe(_ record: CallRecord) {
        let seconds =
            Double(record.duration.components.seconds) + Double(record.duration.components.attoseconds) * 1e-18
        series.withLock { all in
            var entry = all[record.path] ?? Series(buckets: Array(repeating: 0, count: Self.bounds.count))
            entry.calls[record.status.code.description, default: 0] += 1
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { entry.buckets[index] += 1 }
            entry.count += 1
            entry.sum += seconds
            all[record.path] = entry
        }
    }

    /// The metrics text.
    func text() -> String {
        let all = series.withLock { $0 }
        var lines = [
            "# HELP vi_continue_calls_total Calls finished, by method and gRPC status.",
            "# TYPE vi_continue_calls_total counter",
        ]
        for (path, entry) in all.sorted(by: { $0.key < $1.key }) {
            for (status, count) in entry.calls.sorted(by: { $0.key < $1.key }) {
                lines.append(#"vi_continue_calls_total{method="\#(path)",status="\#(status)"} \#(count)"#)
            }
        }
        lines += [
            "# HELP vi_continue_call_duration_seconds Time from a call's request to its status, by method.",
            "# TYPE vi_continue_call_duration_seconds histogram",
        ]
        for (path, entry) in all.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.bounds.enumerated() {
                lines.append(
                    #"vi_continue_call_duration_seconds_bucket{method="\#(path)",le="\#(bound)"} \#(entry.buckets[index])"#
                )
            }
            lines.append(#"vi_continue_call_duration_seconds_bucket{method="\#(path)",le="+Inf"} \#(entry.count)"#)
            lines.append(#"vi_continue_call_duration_seconds_sum{method="\#(path)"} \#(entry.sum)"#)
            lines.append(#"vi_continue_call_duration_seconds_count{method="\#(path)"} \#(entry.count)"#)
        }
        let snapshot = engine.snapshot
        lines += [
            "# HELP vi_continue_connections Client connections open now (HTTP/2 and HTTP/1.1).",
            "# TYPE vi_continue_connections gauge",
            "vi_continue_connections \(connections())",
            "# HELP vi_continue_catalog_version The catalog version served (the durable log's position).",
            "# TYPE vi_continue_catalog_version gauge",
            "vi_continue_catalog_version \(snapshot.version)",
            "# HELP vi_continue_catalog_entities Entities in the catalog served.",
            "# TYPE vi_continue_catalog_entities gauge",
            "vi_continue_catalog_entities \(snapshot.count)",
        ]
        lines += Self.sessionLines(store.statistics)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The session store's series, labelled with its kind; those a store does not keep are left out.
    static func sessionLines(_ statistics: SessionStoreStatistics) -> [String] {
        let label = #"{store="\#(statistics.kind)"}"#
        var lines: [String] = []
        func add(_ name: String, _ type: String, _ help: String, _ value: Int?) {
            guard let value else { return }
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name)\(label) \(value)"]
        }
        add(
            "vi_continue_sessions_stored", "gauge",
            "Sessions in the store now, expired ones not yet purged included (not kept for Redis).",
            statistics.stored)
        add(
            "vi_continue_sessions_created_total", "counter", "Sessions saved since start (one per Capture).",
            statistics.created)
        add("vi_continue_sessions_purged_total", "counter", "Expired sessions deleted since start.", statistics.purged)
        add(
            "vi_continue_sessions_evicted_total", "counter",
            "Sessions dropped before their time since start, to keep the memory store within --max-sessions.",
            statistics.kind == "memory" ? statistics.evicted : nil)
        add(
            "vi_continue_redis_failed_commands_total", "counter",
            "Redis commands of the session store that failed since start: no answer (unreachable, a broken "
                + "connection, a timeout) or an error reply.",
            statistics.failedCommands)
        return lines
    }
}
