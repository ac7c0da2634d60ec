import ContinueService
import Foundation
import SearchAPI
import Synchronization
import Testing
import WireProtocol

/// A `vi-continue serve` on the SQLite store killed with SIGKILL in the middle of a Capture load,
/// then restarted on the same state directory.
extension ServeProcessTests {
    @Suite struct CrashRecoveryTests {
        /// The captures the server acknowledged (their response arrived) before it died.
        final class Acknowledged: Sendable {
            private let states = Mutex<[SearchAPI.SearchState]>([])
            func append(_ state: SearchAPI.SearchState) { states.withLock { $0.append(state) } }
            var all: [SearchAPI.SearchState] { states.withLock { $0 } }
            var count: Int { states.withLock { $0.count } }
        }

        static let words = [
            "rock", "jazz", "classical", "live", "piano", "guitar", "vinyl", "tour", "orchestra", "blues",
        ]

        @Test(
            "SIGKILL during a Capture load loses no acknowledged session: after restart each returns its first page again"
        )
        func sigkillDuringCaptures() async throws {
            let stateDirectory =
                NSTemporaryDirectory() + "vi-continue-crash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            let arguments = ["--store", "sqlite", "--state-dir", stateDirectory, "--log-level", "warn"]
            let first = try ServerProcess(arguments)
            let acknowledged = Acknowledged()
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: first.port))
                        var round = 0
                        while true {
                            let labels = [
                                Self.words[(worker + round) % 10], Self.words[(worker * 3 + round / 10) % 10],
                            ]
                            let request = CaptureRequest(
                                descriptor: SearchAPI.Descriptor(
                                    labels: labels.map { SearchAPI.Label(text: $0, confidence: 0.9) }, source: .camera),
                                pageSize: 5)
                            guard let state = try? await client.capture(request) else { break }
                            acknowledged.append(state)
                            round += 1
                        }
                        await client.close()
                    }
                }
                group.addTask {
                    // Kill in the middle of the load: once enough captures were acknowledged that
                    // others are certainly in flight.
                    let deadline = ContinuousClock.now + .seconds(30)
                    while acknowledged.count < 100, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    first.send(SIGKILL)
                }
            }
            #expect(await first.waitForExit() != nil)
            #expect(first.process.terminationReason == .uncaughtSignal)
            let states = acknowledged.all
            #expect(!states.isEmpty)

            let second = try ServerProcess(arguments)
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: second.port))
            var missing: [String] = []
            var changed: [String] = []
            for state in states {
                do {
                    let again = try await client.search(SearchRequest(sessionID: state.sessionID))
                    if again != state { changed.append(state.sessionID) }
                } catch {
                    missing.append("\(state.sessionID): \(error)")
                }
            }
            await client.close()
            #expect(
                missing.isEmpty, "\(missing.count) of \(states.count) acknowledged sessions lost: \(missing.prefix(3))")
            #expect(changed.isEmpty, "\(changed.count) sessions answer a different first page: \(changed.prefix(3))")
            print("crash: \(states.count) captures acknowledged before SIGKILL, all found intact after restart")
            second.send(SIGTERM)
            #expect(await second.waitForExit() == 0)
        }
    }
}
