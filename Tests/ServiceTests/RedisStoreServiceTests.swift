import ContinueService
import DeepLinkRouter
import Foundation
import SearchAPI
import SearchSession
import ServeTestSupport
import Testing
import WireProtocol

/// The service on the demo with its sessions in a real `redis-server`, which the test kills and
/// brings back. One test at a time, like the store's own suite: they check promptness.
@Suite(.serialized) struct RedisStoreServiceTests {
    static func labels(_ texts: String...) -> SearchAPI.Descriptor {
        SearchAPI.Descriptor(labels: texts.map { SearchAPI.Label(text: $0, confidence: 0.9) }, source: .camera)
    }

    @Test("Redis down: Capture and Search are UNAVAILABLE with a message, Query answers; Redis back: all works again")
    func redisDownAndBack() async throws {
        let redis = try await RedisServerProcess()
        defer { redis.stop() }
        let catalog = try CatalogLoader.load(path: DemoService.directory + "/catalog.jsonl")
        let table = try RouteTable(contentsOfFile: DemoService.directory + "/routes.json")
        let sessions = SearchSessions(
            engine: SearchEngine(catalog: catalog), store: RedisSessionStore(address: redis.address))
        let service = VisualSearchService(sessions: sessions, router: Router(table: table))

        try await withTestServer(methods: service.methods) { addresses in
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let captured = try await client.capture(CaptureRequest(descriptor: Self.labels("rock"), pageSize: 3))
            let firstPage = try await client.search(SearchAPI.SearchRequest(sessionID: captured.sessionID))
            #expect(!firstPage.results.isEmpty)

            await redis.kill()
            let clock = ContinuousClock()
            let start = clock.now
            let captureError = await #expect(throws: RPCError.self) {
                try await client.capture(CaptureRequest(descriptor: Self.labels("rock")))
            }
            #expect(captureError?.code == .unavailable, "\(String(describing: captureError))")
            #expect(captureError?.message.contains("Redis") == true, "\(String(describing: captureError))")
            let searchError = await #expect(throws: RPCError.self) {
                try await client.search(SearchAPI.SearchRequest(sessionID: captured.sessionID))
            }
            #expect(searchError?.code == .unavailable, "\(String(describing: searchError))")
            #expect(clock.now - start < .seconds(2), "errors came promptly")
            let query = try await client.query(QueryRequest(descriptor: Self.labels("rock", "guitar"), limit: 5))
            #expect(!query.results.isEmpty, "Query needs no session")

            try await redis.restart()
            // The store reconnects within its longest backoff (2 s); no restart of the service.
            let deadline = clock.now + .seconds(5)
            var again: SearchAPI.SearchState?
            while again == nil, clock.now < deadline {
                again = try? await client.search(SearchAPI.SearchRequest(sessionID: captured.sessionID))
                if again == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(again == firstPage, "the acknowledged session came back with Redis, same page")
            let fresh = try await client.capture(CaptureRequest(descriptor: Self.labels("jazz")))
            #expect(!fresh.sessionID.isEmpty)
            await client.close()
        }
    }

    @Test("serve takes its Redis store from VI_CONTINUE_STORE, and its sessions land in that Redis")
    func serveWithRedisFromTheEnvironment() async throws {
        let redis = try await RedisServerProcess()
        defer { redis.stop() }
        let process = Process()
        process.executableURL = ServeCommandTests.executable
        process.arguments = ["serve", "--port", "0", "--unix-socket", "none"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["VI_CONTINUE_STORE": redis.address.description]) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // Blocking pipe reads run on a thread of their own, never on the cooperative pool.
        let lines = await offThePool { () -> [String] in
            var lines: [String] = []
            var line: [UInt8] = []
            while lines.last?.contains("serving on") != true {
                guard let byte = stderr.fileHandleForReading.readData(ofLength: 1).first else { break }
                if byte == UInt8(ascii: "\n") {
                    lines.append(String(decoding: line, as: UTF8.self))
                    line = []
                } else {
                    line.append(byte)
                }
            }
            return lines
        }
        #expect(lines.contains { $0.contains("sessions Redis \(redis.address)") }, "\(lines)")
        let serving = try #require(lines.last { $0.contains("serving on 127.0.0.1:") })
        let port = try #require(Int(serving.split(separator: ":")[2].prefix { $0.isNumber }))

        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: port))
        let state = try await client.capture(CaptureRequest(descriptor: Self.labels("rock")))
        await client.close()
        let stored = try await RedisSessionStore(address: redis.address)
            .load(id: state.sessionID, nowUnixMs: SearchEngine.systemNowMs())
        #expect(stored.labels.map(\.text) == ["rock"])
    }

    @Test("/metrics of a serve on Redis: sessions created, and the Redis commands that failed while it was down")
    func metricsCountRedisSessionsAndFailures() async throws {
        let redis = try await RedisServerProcess()
        defer { redis.stop() }
        let server = try ServerProcess(["--store", redis.address.description, "--log-level", "error"])
        defer { server.send(SIGKILL) }
        let label = #"{store="redis"}"#
        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: server.port))
        for _ in 0..<3 { _ = try await client.capture(CaptureRequest(descriptor: Self.labels("rock"))) }
        let healthy = try await MetricsScrape.fetch(port: server.port)
        #expect(healthy.value("vi_continue_sessions_created_total" + label) == 3, "\(healthy.text)")
        #expect(healthy.value("vi_continue_redis_failed_commands_total" + label) == 0)
        #expect(healthy.value("vi_continue_sessions_stored" + label) == nil, "Redis keeps that count, not serve")

        await redis.kill()
        for _ in 0..<2 {
            await #expect(throws: RPCError.self) {
                try await client.capture(CaptureRequest(descriptor: Self.labels("rock")))
            }
        }
        await client.close()
        let failing = try await MetricsScrape.fetch(port: server.port)
        #expect(failing.value("vi_continue_sessions_created_total" + label) == 3, "\(failing.text)")
        // Each failed Capture is one SET with no answer; the purge loop's PINGs may add more.
        #expect((failing.value("vi_continue_redis_failed_commands_total" + label) ?? 0) >= 2, "\(failing.text)")
    }

    @Test("serve refuses a malformed Redis address with exit 2 and the reason")
    func malformedRedisAddress() async throws {
        let process = Process()
        process.executableURL = ServeCommandTests.executable
        process.arguments = ["serve", "--port", "0", "--unix-socket", "none", "--store", "redis://cache:http"]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = await offThePool { () -> String in
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        #expect(process.terminationStatus == 2)
        #expect(text.contains("redis://cache:http: the port must be a number from 1 to 65535"), "\(text)")
    }
}

/// A `redis-server` of the test's own on a free loopback port and a temporary directory, with
/// its append-only log fsynced on every write so a restart brings back what was acknowledged.
final class RedisServerProcess: @unchecked Sendable {
    let directory: String
    let address: RedisAddress
    private var process = Process()

    init() async throws {
        directory = NSTemporaryDirectory() + "redis-service-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        address = RedisAddress(.tcp(host: "127.0.0.1", port: try Self.freePort()))
        do {
            try await start()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private func start() async throws {
        guard case .tcp(_, let port) = address.endpoint else { return }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--bind", "127.0.0.1", "--port", String(port), "--dir", directory, "--save", "", "--appendonly", "yes",
            "--appendfsync", "always", "--logfile", directory + "/redis.log", "--daemonize", "no",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let clock = ContinuousClock()
        // Generous: on a machine busy with parallel builds and tests a start can take seconds.
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline, process.isRunning {
            if (try? await RedisSessionStore(address: address).ping()) != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        // The caller never gets a server to stop: leave no process behind.
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
        throw PythonPeer.PeerError(message: "redis-server did not start on \(address)")
    }

    /// Starts the server again on the same port and directory.
    func restart() async throws { try await start() }

    /// Kills the server with SIGKILL and waits, off the cooperative pool, for it to die.
    func kill() async {
        let process = process
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
        await offThePool { process.waitUntilExit() }
    }

    /// Kills the server and removes its directory (from a `defer`, so it waits the few
    /// milliseconds a SIGKILLed process takes to die on the calling thread).
    func stop() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A port that was free a moment ago: bound to port 0, read back, closed.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw PythonPeer.PeerError(message: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
