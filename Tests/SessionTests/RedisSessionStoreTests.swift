import Foundation
import ServeTestSupport
import Testing

@testable import SearchSession

/// The Redis store against a real `redis-server` started by each test on a loopback port of its
/// own, in a temporary directory.
///
/// One test at a time: their promptness checks (a storage error within 2 s) measure the store,
/// and a dozen servers starting and dying at once on two cores once stalled the whole process
/// past that bound.
@Suite(.serialized) struct RedisSessionStoreTests {
    static func record(expires: Int64 = 4_000_000_000_000) -> SessionRecord {
        SessionRecord(
            id: SessionRecord.newID(), labels: [Label("guitar", confidence: 0.8), Label("amp")],
            prints: [FeaturePrint(model: "m3", values: [1, 0.5, 0.25])], source: .screenshot, locale: "de-DE",
            queryText: "", pageSize: 30, createdAtUnixMs: 1_000, expiresAtUnixMs: expires)
    }

    static var nowMs: Int64 { SearchEngine.systemNowMs() }

    @Test("a saved session loads back intact on another store of the same Redis")
    func saveAndLoadAcrossStores() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let r = Self.record()
        try await RedisSessionStore(address: redis.address).save(r)
        let other = RedisSessionStore(address: redis.address)
        #expect(try await other.load(id: r.id, nowUnixMs: Self.nowMs) == r)
    }

    @Test("unknown, malformed and expired ids are NOT_FOUND with a message")
    func unknownMalformedAndExpired() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address)
        let unknown = SessionRecord.newID()
        await #expect(throws: SearchError.sessionNotFound(unknown)) {
            try await store.load(id: unknown, nowUnixMs: Self.nowMs)
        }
        await #expect(throws: SearchError.sessionNotFound("x\r\nFLUSHALL")) {
            try await store.load(id: "x\r\nFLUSHALL", nowUnixMs: Self.nowMs)
        }
        // Live in Redis, but expired by the caller's clock: the caller's clock has the last word.
        let r = Self.record(expires: Self.nowMs + 60_000)
        try await store.save(r)
        await #expect(throws: SearchError.sessionNotFound(r.id)) {
            try await store.load(id: r.id, nowUnixMs: r.expiresAtUnixMs)
        }
        let error = await #expect(throws: SearchError.self) { try await store.load(id: unknown, nowUnixMs: 0) }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("may have expired") == true)
    }

    @Test("Redis itself deletes a session at its expiry, so there is nothing to purge")
    func redisEnforcesTheTimeToLive() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address)
        let short = Self.record(expires: Self.nowMs + 300)
        let long = Self.record(expires: Self.nowMs + 600_000)
        try await store.save(short)
        try await store.save(long)
        // Redis holds the expiry (the long one, so a slow machine cannot let it lapse first).
        let pttl = try await redis.command("PTTL", "vi-continue:session:\(long.id)")
        guard case .integer(let ms) = pttl else {
            Issue.record("PTTL answered \(pttl)")
            return
        }
        #expect(ms > 500_000 && ms <= 600_000, "PTTL \(ms) ms")
        try await Task.sleep(for: .milliseconds(500))
        // A caller whose clock says "still live" gets NOT_FOUND: the key is gone from Redis.
        await #expect(throws: SearchError.sessionNotFound(short.id)) {
            try await store.load(id: short.id, nowUnixMs: 0)
        }
        #expect(try await redis.command("EXISTS", "vi-continue:session:\(short.id)") == .integer(0))
        #expect(try await store.purgeExpired(nowUnixMs: Self.nowMs) == 0)
        #expect(try await store.load(id: long.id, nowUnixMs: Self.nowMs) == long)
        #expect(try await redis.command("DBSIZE") == .integer(1))
    }

    @Test("an already-expired session is not kept")
    func alreadyExpiredIsDropped() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address)
        let dead = Self.record(expires: Self.nowMs - 1_000)
        try await store.save(dead)
        // EXISTS, not DBSIZE: Redis may reclaim an expired key lazily, but never shows it.
        #expect(try await redis.command("EXISTS", "vi-continue:session:\(dead.id)") == .integer(0))
        await #expect(throws: SearchError.sessionNotFound(dead.id)) {
            try await store.load(id: dead.id, nowUnixMs: 0)
        }
    }

    @Test("a database number in the address selects that database")
    func databaseNumber() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        var three = redis.address
        three.database = 3
        let r = Self.record()
        try await RedisSessionStore(address: three).save(r)
        #expect(try await RedisSessionStore(address: three).load(id: r.id, nowUnixMs: Self.nowMs) == r)
        await #expect(throws: SearchError.sessionNotFound(r.id)) {
            try await RedisSessionStore(address: redis.address).load(id: r.id, nowUnixMs: Self.nowMs)
        }
        #expect(try await redis.command("DBSIZE") == .integer(0))
    }

    @Test("a Unix socket address works like TCP")
    func unixSocket() async throws {
        let redis = try await RedisTestServer(unixSocket: true)
        defer { redis.stop() }
        guard case .unix = redis.address.endpoint else {
            Issue.record("not a unix address: \(redis.address)")
            return
        }
        let store = RedisSessionStore(address: try RedisAddress(parsing: redis.address.description))
        let r = Self.record()
        try await store.save(r)
        #expect(try await store.load(id: r.id, nowUnixMs: Self.nowMs) == r)
    }

    @Test("500 concurrent saves all land and load back")
    func concurrentSaves() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address)
        let records = (0..<500).map { _ in Self.record() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for r in records { group.addTask { try await store.save(r) } }
            try await group.waitForAll()
        }
        #expect(try await redis.command("DBSIZE") == .integer(500))
        let loaded = try await withThrowingTaskGroup(of: SessionRecord.self) { group in
            for r in records { group.addTask { try await store.load(id: r.id, nowUnixMs: Self.nowMs) } }
            return try await group.reduce(into: [SessionRecord]()) { $0.append($1) }
        }
        #expect(Set(loaded) == Set(records))
    }

    @Test("Redis killed: a storage error within 2 s; Redis back: the same store works again by itself")
    func killAndRestart() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address)
        let before = Self.record()
        try await store.save(before)

        await redis.kill()
        for attempt in 0..<3 {
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: SearchError.self) { try await store.save(Self.record()) }
            let elapsed = clock.now - start
            #expect(error?.code == .storage, "attempt \(attempt): \(String(describing: error))")
            #expect(error?.message.contains("Redis at \(redis.address)") == true, "\(String(describing: error))")
            #expect(elapsed < .seconds(2), "attempt \(attempt) took \(elapsed)")
        }
        let loadError = await #expect(throws: SearchError.self) {
            try await store.load(id: before.id, nowUnixMs: Self.nowMs)
        }
        #expect(loadError?.code == .storage)

        try await redis.restart()
        // Within the longest backoff (2 s) the store reconnects; the appendfsync-always log
        // brought the acknowledged session back.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        var loaded: SessionRecord?
        while loaded == nil, clock.now < deadline {
            loaded = try? await store.load(id: before.id, nowUnixMs: Self.nowMs)
            if loaded == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(loaded == before)
        let after = Self.record()
        try await store.save(after)
        #expect(try await store.load(id: after.id, nowUnixMs: Self.nowMs) == after)
    }

    @Test("a Redis that stops answering gives a storage error after the command timeout, not a hang")
    func hungRedisTimesOut() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let store = RedisSessionStore(address: redis.address, commandTimeout: .milliseconds(300))
        try await store.ping()
        redis.signal(SIGSTOP)
        defer { redis.signal(SIGCONT) }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: SearchError.self) { try await store.save(Self.record()) }
        #expect(error?.code == .storage)
        #expect(clock.now - start < .seconds(2))
        redis.signal(SIGCONT)
        let deadline = clock.now + .seconds(5)
        var recovered = false
        while !recovered, clock.now < deadline {
            recovered = (try? await store.ping()) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(recovered)
    }

    @Test(
        "addresses parse and print back",
        arguments: [
            ("redis://127.0.0.1:6380", "redis://127.0.0.1:6380"),
            ("redis://cache", "redis://cache:6379"),
            ("redis://cache:7000/2", "redis://cache:7000/2"),
            ("redis://cache/0", "redis://cache:6379"),
            ("redis://[::1]:7000/5", "redis://[::1]:7000/5"),
            ("redis+unix:///run/redis.sock", "redis+unix:///run/redis.sock"),
            ("redis+unix:///run/redis.sock?db=4", "redis+unix:///run/redis.sock?db=4"),
        ])
    func addressesParse(text: String, printed: String) throws {
        #expect(try RedisAddress(parsing: text).description == printed)
    }

    @Test(
        "bad addresses are rejected with the reason",
        arguments: [
            ("http://cache:6379", "must start with redis:// or redis+unix://"),
            ("redis://", "has no host"),
            ("redis://cache:0", "the port must be a number from 1 to 65535"),
            ("redis://cache:http", "the port must be a number from 1 to 65535"),
            ("redis://cache:6379/x", "the database must be a number from 0 to 65535"),
            ("redis://[::1", "an IPv6 host needs its closing ]"),
            ("redis+unix://run/redis.sock", "the socket path must be absolute"),
            ("redis+unix:///run/redis.sock?database=1", "the only query is ?db=N"),
        ])
    func badAddresses(text: String, reason: String) {
        let error = #expect(throws: SearchError.self) { try RedisAddress(parsing: text) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
    }
}

/// A `redis-server` of a test's own: loopback, a free port (or a Unix socket), a temporary
/// directory, append-only log fsynced on every write; killed and removed by `stop()`.
final class RedisTestServer: @unchecked Sendable {
    let directory: String
    let address: RedisAddress
    private var process: Process

    init(unixSocket: Bool = false) async throws {
        directory = NSTemporaryDirectory() + "redis-test-\(SessionRecord.newID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        address =
            unixSocket
            ? RedisAddress(.unix(path: directory + "/redis.sock"))
            : RedisAddress(.tcp(host: "127.0.0.1", port: try Self.freePort()))
        process = Process()
        do {
            try await start()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private func start() async throws {
        var arguments = [
            "--bind", "127.0.0.1", "--dir", directory, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
            "--logfile", directory + "/redis.log", "--daemonize", "no",
        ]
        switch address.endpoint {
        case .tcp(_, let port): arguments += ["--port", String(port)]
        case .unix(let path): arguments += ["--port", "0", "--unixsocket", path]
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let clock = ContinuousClock()
        // Generous: on a machine busy with parallel builds and tests a start can take seconds.
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            if (try? await RedisSessionStore(address: address).ping()) != nil { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        // The caller never gets a server to stop: leave no process behind.
        signal(SIGKILL)
        let log = (try? String(contentsOfFile: directory + "/redis.log", encoding: .utf8)) ?? ""
        throw StartFailure(description: "redis-server did not start on \(address): \(log.suffix(500))")
    }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends one command on a connection of its own.
    func command(_ arguments: String...) async throws -> RedisReply {
        let queue = RedisCommandQueue(address: address, connectTimeout: .seconds(1), commandTimeout: .seconds(1))
        return try await queue.execute([arguments.map { Array($0.utf8) }])[0]
    }

    /// Kills the server with SIGKILL and waits, on a thread of its own (never the cooperative
    /// pool), for it to die.
    func kill() async {
        signal(SIGKILL)
        let process = process
        await offThePool { process.waitUntilExit() }
    }

    /// Sends a signal to the server.
    func signal(_ number: Int32) {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, number) }
    }

    /// Starts the server again on the same address and directory.
    func restart() async throws {
        try await start()
    }

    /// Kills the server and removes its directory.
    func stop() {
        signal(SIGCONT)
        signal(SIGKILL)
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
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw StartFailure(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
