import ContinueService
import SearchAPI
import Synchronization
import Testing
import WireProtocol

/// `ServerConfiguration.callObserver`, the hook under the call log, on an in-process server.
@Suite struct CallObserverTests {
    /// The records the observer was handed.
    final class Records: Sendable {
        private let records = Mutex<[CallRecord]>([])
        func append(_ record: CallRecord) { records.withLock { $0.append(record) } }
        var all: [CallRecord] { records.withLock { $0 } }

        /// Waits until `count` records arrived (the observer runs on the server's threads).
        func waitFor(_ count: Int) async -> [CallRecord] {
            for _ in 0..<3000 where all.count < count { try? await Task.sleep(for: .milliseconds(10)) }
            return all
        }
    }

    /// Runs `body` with a client of an in-process server on the demo and health services.
    func withObservedServer(_ body: @Sendable (GRPCClient, Records) async throws -> Void) async throws {
        let records = Records()
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0))
        configuration.callObserver = { records.append($0) }
        let health = HealthService()
        let server = GRPCServer(configuration: configuration, methods: try DemoService.make().methods + health.methods)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try #require(try await server.waitUntilListening().tcpPort)
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: port))
            do {
                try await body(client, records)
            } catch {
                server.beginGracefulShutdown()
                throw error
            }
            await client.close()
            health.stopWatching()
            server.beginGracefulShutdown()
            try await group.waitForAll()
        }
    }

    @Test("each call is reported once, with its path, status, duration and request metadata")
    func oneRecordPerCall() async throws {
        try await withObservedServer { client, records in
            _ = try await client.unary(
                path: MethodPaths.Health.check, request: Health.CheckRequest().serializedBytes(),
                metadata: ["x-request-id": "observed-1"])
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(path: "/no.Such/Method", request: [])
            }
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    path: MethodPaths.VisualSearch.search, request: SearchRequest(sessionID: "none").serializedBytes())
            }
            let all = await records.waitFor(3)
            #expect(all.map(\.path) == [MethodPaths.Health.check, "/no.Such/Method", MethodPaths.VisualSearch.search])
            #expect(all.map(\.status.code) == [.ok, .unimplemented, .notFound])
            #expect(all[0].requestMetadata.first(named: "x-request-id") == .string("observed-1"))
            #expect(all.allSatisfy { $0.duration >= .zero && $0.peer.contains("127.0.0.1:") })
        }
    }

    @Test("a stream the client cancels is reported once as CANCELLED")
    func cancelledStream() async throws {
        try await withObservedServer { client, records in
            let firstStatus = Records()
            let watching = Task {
                let stream = try await client.serverStreaming(
                    path: MethodPaths.Health.watch, request: Health.CheckRequest().serializedBytes())
                for try await _ in stream {
                    firstStatus.append(
                        CallRecord(path: "", status: .ok, duration: .zero, requestMetadata: [:], peer: ""))
                }
            }
            // Watch answers with the current status at once: once it is here the call runs.
            _ = await firstStatus.waitFor(1)
            watching.cancel()
            _ = await watching.result
            let all = await records.waitFor(1)
            try await Task.sleep(for: .milliseconds(100))
            #expect(records.all.count == 1)
            #expect(all.first?.path == MethodPaths.Health.watch)
            #expect(all.first?.status.code == .cancelled)
        }
    }
}
