import ContinueService
import Foundation
import SearchAPI
import Testing
import WireProtocol

/// `GET /metrics` counts the real store's sessions: created by Captures, purged once expired,
/// stored now, and (for memory) evicted past `--max-sessions`.
extension ServeProcessTests {
    @Suite struct SessionMetricsTests {
        static func capture(port: Int, count: Int) async throws {
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: port))
            for index in 0..<count {
                let descriptor = SearchAPI.Descriptor(
                    labels: [SearchAPI.Label(text: ["rock", "jazz"][index % 2], confidence: 0.9)], source: .camera)
                _ = try await client.capture(CaptureRequest(descriptor: descriptor, pageSize: 3))
            }
            await client.close()
        }

        /// Scrapes until `done` holds for the metrics or about 30 s pass; the last scrape.
        static func scrape(port: Int, until done: (MetricsScrape) -> Bool) async throws -> MetricsScrape {
            var metrics = try await MetricsScrape.fetch(port: port)
            for _ in 0..<300 where !done(metrics) {
                try await Task.sleep(for: .milliseconds(100))
                metrics = try await MetricsScrape.fetch(port: port)
            }
            return metrics
        }

        @Test(
            "sessions stored, created and purged, labelled with the store's kind",
            arguments: ["memory", "sqlite"])
        func sessionCounts(kind: String) async throws {
            let stateDirectory =
                NSTemporaryDirectory() + "vi-continue-metrics-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            let server = try ServerProcess([
                "--store", kind, "--state-dir", stateDirectory, "--session-ttl", "1", "--purge-interval", "0.2",
                "--log-level", "warn",
            ])
            let label = #"{store="\#(kind)"}"#
            let before = try await MetricsScrape.fetch(port: server.port)
            #expect(before.value("vi_continue_sessions_created_total" + label) == 0, "\(before.text)")
            #expect(before.value("vi_continue_sessions_stored" + label) == 0)
            #expect(before.value("vi_continue_redis_failed_commands_total" + label) == nil, "no Redis here")

            try await Self.capture(port: server.port, count: 12)
            let created = try await MetricsScrape.fetch(port: server.port)
            #expect(created.value("vi_continue_sessions_created_total" + label) == 12, "\(created.text)")
            // Every session lives 1 s and the purge runs every 0.2 s: all of them go, in time.
            let purged = try await Self.scrape(port: server.port) {
                $0.value("vi_continue_sessions_purged_total" + label) == 12
            }
            #expect(purged.value("vi_continue_sessions_purged_total" + label) == 12, "\(purged.text)")
            #expect(purged.value("vi_continue_sessions_stored" + label) == 0)
            #expect(purged.value("vi_continue_sessions_created_total" + label) == 12)
            #expect(purged.text.contains("# TYPE vi_continue_sessions_created_total counter"))
            #expect(purged.value("vi_continue_sessions_evicted_total" + label) == (kind == "memory" ? 0 : nil))
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("the memory store counts the sessions it drops past --max-sessions")
        func evictions() async throws {
            let server = try ServerProcess(["--store", "memory", "--max-sessions", "5", "--log-level", "warn"])
            try await Self.capture(port: server.port, count: 8)
            let metrics = try await MetricsScrape.fetch(port: server.port)
            #expect(metrics.value(#"vi_continue_sessions_created_total{store="memory"}"#) == 8, "\(metrics.text)")
            #expect(metrics.value(#"vi_continue_sessions_evicted_total{store="memory"}"#) == 3)
            #expect(metrics.value(#"vi_continue_sessions_stored{store="memory"}"#) == 5)
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }
}
