import SearchSession
import Synchronization
import WireProtocol

/// What `GET /metrics` reports, in the Prometheus text format (version 0.0.4): calls by method
/// and status, their latency as histograms, open connections, and the catalog's version and size.
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
    private let connections: @Sendable () -> Int

    init(engine: SearchEngine, connections: @escaping @Sendable () -> Int) {
        self.engine = engine
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
        return lines.joined(separator: "\n") + "\n"
    }
}
