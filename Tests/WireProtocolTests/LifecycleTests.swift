import Glibc
import H2TestClient
import Testing

@testable import WireProtocol

@Suite struct LifecycleTests {
    @Test func gracefulShutdownLetsInFlightCallsFinishAndRefusesNewOnes() async throws {
        let observations = Observations()
        let server = GRPCServer(
            configuration: ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 2),
            methods: TestMethods.all(observations))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.waitUntilListening().tcpPort!
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: port))
            let inFlight = Task { try await client.unary(path: "/test.Echo/Slow", request: [5]) }
            #expect(await observations.waitFor("slow-started"))
            server.beginGracefulShutdown()
            try await Task.sleep(for: .milliseconds(50))  // let the GOAWAY reach the client
            await expectRPCError(.unavailable) { _ = try await client.unary(path: "/test.Echo/Unary", request: [6]) }
            let response = try await inFlight.value
            #expect(response.message == [5])
            try await group.waitForAll()  // run() returned
            await expectRPCError(.unavailable) { _ = try await client.unary(path: "/test.Echo/Unary", request: [7]) }
            await client.close()
        }
    }

    @Test func theGracePeriodEndsCallsThatWillNotFinish() async throws {
        let observations = Observations()
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.shutdownGracePeriod = .milliseconds(200)
        let server = GRPCServer(configuration: configuration, methods: TestMethods.all(observations))
        let run = Task { try await server.run() }
        let port = try await server.waitUntilListening().tcpPort!
        let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: port))
        let hung = Task { try await client.unary(path: "/test.Echo/Sleep", request: [1]) }
        #expect(await observations.waitFor("sleep-started"))
        server.beginGracefulShutdown()
        try await run.value  // returns although the handler would sleep for 30 s
        let outcome = await hung.result
        #expect(throws: RPCError.self) { try outcome.get() }
        #expect(await observations.waitFor("sleep-cancelled"))
        await client.close()
    }

    @Test func shutdownBeforeRunMakesRunReturnAtOnce() async throws {
        let server = GRPCServer(
            configuration: ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1), methods: [])
        server.beginGracefulShutdown()
        try await server.run()
    }

    @Test func cancellingRunShutsTheServerDown() async throws {
        let server = GRPCServer(
            configuration: ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1), methods: [])
        let run = Task { try await server.run() }
        _ = try await server.waitUntilListening()
        run.cancel()
        try await run.value
    }

    @Test func aPortInUseFailsRunAndWaitUntilListening() async throws {
        try await withServer { _, addresses in
            let second = GRPCServer(
                configuration: ServerConfiguration(tcp: .init(host: "127.0.0.1", port: addresses.tcpPort!)), methods: []
            )
            await #expect(throws: TransportError.self) { try await second.run() }
            await #expect(throws: TransportError.self) { _ = try await second.waitUntilListening() }
        }
    }

    @Test func aStaleUnixSocketFileIsReplaced() async throws {
        let path = "/tmp/wire-stale-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = try Socket.unixAddress(path)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(fd)
        #expect(access(path, F_OK) == 0)
        try await withServer(ServerConfiguration(unixSocketPath: path, eventLoopCount: 1)) { _, _ in
            let client = GRPCClient(target: .unix(path: path))
            let response = try await client.unary(path: "/test.Echo/Unary", request: [1])
            #expect(response.message == [1])
            await client.close()
        }
        #expect(access(path, F_OK) != 0)
    }

    @Test("The Unix socket is the owner's only, even under umask 0")
    func unixSocketModeIgnoresTheUmask() async throws {
        let path = "/tmp/wire-mode-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        // umask is per process (other tests run meanwhile): cleared for the listen only.
        let previous = umask(0)
        let fd: Int32
        do {
            defer { umask(previous) }
            fd = try Socket.listenUnix(path: path)
        }
        defer {
            close(fd)
            unlink(path)
        }
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func aSlowReaderSuspendsTheWriterInsteadOfBufferingWithoutBound() async throws {
        let observations = Observations()
        try await withServer(observations: observations) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let id = raw.open(path: "/test.Echo/Flood", body: [0, 0, 0, 0, 0])
            try await raw.pump { !raw.replies[id]!.headers.isEmpty }
            #expect(await observations.waitFor("flood-2"))
            // The client reads no more. Give the handler time it would need to run far ahead.
            try await Task.sleep(for: .milliseconds(300))
            let written = observations.events.filter { $0.hasPrefix("flood-") }.count
            #expect(written < 50, "the writer ran \(written) messages ahead of a client that reads nothing")
            raw.reset(id)
            try await raw.pump { raw.replies[id]!.closed }
            #expect(await observations.waitFor("flood-stopped"))
        }
    }

    @Test func aSlowStreamConsumerHoldsTheServerBackThenGetsEverything() async throws {
        let observations = Observations()
        try await withServer(observations: observations) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let stream = try await client.serverStreaming(path: "/test.Echo/Flood", request: [])
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            #expect(await observations.waitFor("flood-2"))
            try await Task.sleep(for: .milliseconds(300))
            let written = observations.events.filter { $0.hasPrefix("flood-") }.count
            #expect(written < 100, "the server ran \(written) messages ahead of a consumer that paused")
            var received = 1
            while let message = try await iterator.next() {
                #expect(message.count == 64 * 1024)
                received += 1
            }
            #expect(received == 200)
            await client.close()
        }
    }

    @Test func aPeerThatStopsAnsweringKeepalivePingsIsDisconnected() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.keepaliveInterval = .milliseconds(100)
        configuration.keepaliveTimeout = .seconds(1)
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            // While it answers (nghttp2 acks PINGs as it pumps), the connection stays.
            let until = ContinuousClock.now + .milliseconds(400)
            try await raw.pump { ContinuousClock.now > until || raw.connectionClosed }
            #expect(!raw.connectionClosed)
            // Silent for a while: the server gives up on it.
            try await Task.sleep(for: .milliseconds(1600))
            try await raw.pump { raw.connectionClosed }
            #expect(raw.connectionClosed)
            try await HostileInputTests.expectStillServing(addresses)
        }
    }

    @Test func hundredsOfIdleConnectionsDoNotStopTheServer() async throws {
        try await withServer { _, addresses in
            var clients: [RawH2Client] = []
            for _ in 0..<300 {
                let raw = try RawH2Client(port: addresses.tcpPort!)
                try await raw.pump { true }  // preface and SETTINGS out
                clients.append(raw)
            }
            try await HostileInputTests.expectStillServing(addresses)
            let reply = try await clients[150].call(path: "/test.Echo/Unary", body: [0, 0, 0, 0, 1, 9])
            #expect(reply.data == [0, 0, 0, 0, 1, 9])
            clients.removeAll()
            try await HostileInputTests.expectStillServing(addresses)
        }
    }

    @Test func idleConnectionsAreClosedAfterTheIdleTimeout() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.idleTimeout = .milliseconds(100)
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            try await raw.pump { raw.goawayCode != nil || raw.connectionClosed }
            #expect(raw.goawayCode == 0)
        }
    }
}
