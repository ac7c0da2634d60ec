import ContinueService
import Foundation
import SearchAPI
import Synchronization
import Testing
import WireProtocol

/// Graceful shutdown of a real `vi-continue serve` under load: SIGTERM while a thousand calls are
/// in flight.
extension ServeProcessTests {
    @Suite struct DrainTests {
        /// How one call ended, from the client's side.
        struct Outcome: Sendable {
            var requestID: String
            var code: Status.Code
            var message: String
            var results: Int
        }

        /// Counts completed calls, to time the signal.
        final class Counter: Sendable {
            private let value = Atomic<Int>(0)
            func increment() { value.add(1, ordering: .relaxed) }
            var count: Int { value.load(ordering: .relaxed) }
        }

        static let request = QueryRequest(
            descriptor: SearchAPI.Descriptor(
                labels: ["rock", "jazz", "classical", "live"].map { SearchAPI.Label(text: $0, confidence: 0.8) }),
            limit: 20)

        static func call(_ client: GRPCClient, id: String, done: Counter) async -> Outcome {
            do {
                let reply = try await client.unary(
                    path: MethodPaths.VisualSearch.query, request: request.serializedBytes(),
                    metadata: ["x-request-id": .string(id)])
                done.increment()
                let response = try QueryResponse(serializedBytes: reply.message)
                return Outcome(requestID: id, code: .ok, message: "", results: response.results.count)
            } catch let error as RPCError {
                return Outcome(requestID: id, code: error.code, message: error.message, results: 0)
            } catch {
                return Outcome(requestID: id, code: .unknown, message: "\(error)", results: 0)
            }
        }

        @Test(
            "SIGTERM during 1,000 in-flight calls: each completes OK or fails UNAVAILABLE unstarted, and serve exits 0")
        func sigtermDuringAThousandCalls() async throws {
            let server = try ServerProcess()
            // Five connections × 200 calls: with 100 streams allowed per connection, half the calls
            // are running on the server and half wait in the client when the signal comes.
            let clients = (0..<5).map { _ in GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port)) }
            for client in clients {
                _ = try await client.unary(
                    path: MethodPaths.Health.check, request: Health.CheckRequest().serializedBytes())
            }
            let done = Counter()
            let outcomes = await withTaskGroup(of: [Outcome].self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        [await Self.call(clients[index % clients.count], id: "drain-\(index)", done: done)]
                    }
                }
                group.addTask {
                    let deadline = ContinuousClock.now + .seconds(30)
                    while done.count < 100, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    server.send(SIGTERM)
                    // Calls made after the signal: too late to start, they must be refused cleanly.
                    return await withTaskGroup(of: Outcome.self) { late in
                        for index in 0..<100 {
                            late.addTask {
                                await Self.call(clients[index % clients.count], id: "late-\(index)", done: done)
                            }
                        }
                        return await late.reduce(into: []) { $0.append($1) }
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            let exitStatus = await server.waitForExit()
            for client in clients { await client.close() }

            #expect(exitStatus == 0)
            #expect(outcomes.count == 1100)
            let ok = outcomes.filter { $0.code == .ok }
            let unavailable = outcomes.filter { $0.code == .unavailable }
            let other = outcomes.filter { $0.code != .ok && $0.code != .unavailable }
            #expect(other.isEmpty, "\(other.prefix(5))")
            #expect(ok.count >= 100)
            #expect(ok.allSatisfy { $0.results > 0 })
            // The server's view through its call log: every call the client saw succeed ran exactly
            // once and ended OK there, and none that failed ran to another status.
            var serverStatus: [String: [String]] = [:]
            for line in server.callLines {
                guard let match = line.firstMatch(of: CallLogTests.linePattern) else { continue }
                serverStatus[String(match.4), default: []].append(String(match.2))
            }
            for outcome in ok { #expect(serverStatus[outcome.requestID] == ["OK"], "\(outcome.requestID)") }
            for outcome in unavailable {
                let seen = serverStatus[outcome.requestID] ?? []
                #expect(seen.isEmpty || seen == ["UNAVAILABLE"], "\(outcome.requestID) ended \(seen) on the server")
            }
            let okLate = ok.filter { $0.requestID.hasPrefix("late-") }.count
            print(
                "drain: \(ok.count) OK (\(okLate) of them sent after SIGTERM), \(unavailable.count) UNAVAILABLE, "
                    + "exit \(exitStatus.map(String.init) ?? "none")")
        }
    }
}
