import ContinueService
import SearchAPI
import Testing
import WireProtocol

@Suite struct HealthServiceTests {
    @Test("Check answers SERVING for the server and NOT_FOUND for an unknown service")
    func check() async throws {
        let health = HealthService()
        try await withTestServer(methods: health.methods) { addresses in
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let status = try await client.checkHealth().status
            #expect(status == .serving)
            let error = await #expect(throws: RPCError.self) {
                try await client.checkHealth(Health.CheckRequest(service: "no.such.Service"))
            }
            #expect(error?.code == .notFound)
            #expect(error?.message == "unknown service 'no.such.Service'")
            await client.close()
        }
    }

    @Test("Watch sends the current status, every change, and ends when the server stops watching")
    func watch() async throws {
        let health = HealthService()
        try await withTestServer(methods: health.methods) { addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let stream = try await client.serverStreaming(
                path: MethodPaths.Health.watch, request: Health.CheckRequest(service: "svc").serializedBytes())
            var iterator = stream.makeAsyncIterator()
            let firstBytes = try await iterator.next()
            let first = try Health.CheckResponse(serializedBytes: #require(firstBytes))
            #expect(first.status == .serviceUnknown)
            health.setStatus(.serving, for: "svc")
            let secondBytes = try await iterator.next()
            let second = try Health.CheckResponse(serializedBytes: #require(secondBytes))
            #expect(second.status == .serving)
            health.stopWatching()
            let lastBytes = try await iterator.next()
            let last = try Health.CheckResponse(serializedBytes: #require(lastBytes))
            #expect(last.status == .notServing)
            #expect(try await iterator.next() == nil)
            await client.close()
        }
    }

    @Test("a grpcio health client sees SERVING")
    func grpcioHealthCheck() async throws {
        try await withTestServer(methods: HealthService().methods) { addresses in
            let output = try await PythonPeer.run("health_check.py", ["127.0.0.1:\(addresses.tcpPort!)"])
            #expect(output.stdout == "SERVING\n", "\(output.stderr)")
            #expect(output.status == 0)
        }
    }
}
