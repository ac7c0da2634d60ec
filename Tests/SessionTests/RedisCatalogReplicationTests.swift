import Foundation
import Synchronization
import Testing

@testable import SearchSession

/// Instances sharing one catalog through a real `redis-server`: each a ``CatalogReplica`` over an
/// engine loaded from the same file, as `serve --store redis://…` runs them.
@Suite(.serialized) struct RedisCatalogReplicationTests {
    static let baseline = (0..<20).map { i in
        Entity(type: "album", id: "base-\(i)", title: "Baseline \(i)", category: "Music/Jazz", tags: ["base"])
    }

    static func instance(
        _ redis: RedisTestServer, retainedEntries: Int = 10_000,
        onServingChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) -> CatalogReplica {
        CatalogReplica(
            engine: SearchEngine(entities: baseline), address: redis.address, retainedEntries: retainedEntries,
            onServingChange: onServingChange)
    }

    /// Every entity of an instance's catalog, in one order.
    static func contents(_ replica: CatalogReplica) -> [Entity] {
        replica.engine.snapshot.entities.sorted { $0.ref < $1.ref }
    }

    /// Waits until `condition` holds, for at most `seconds`; returns how long it took.
    static func waitUntil(seconds: Double = 10, _ condition: () -> Bool) async -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .milliseconds(Int(seconds * 1000)) {
            if condition() { return clock.now - start }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Runs `body` with a Redis of its own and two caught-up instances on it, stopped afterwards.
    static func withTwoInstances(
        _ body: (RedisTestServer, CatalogReplica, CatalogReplica) async throws -> Void
    ) async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let a = instance(redis)
        let b = instance(redis)
        defer {
            a.stop()
            b.stop()
        }
        #expect(await waitUntil { a.isCaughtUp && b.isCaughtUp } != nil)
        try await body(redis, a, b)
    }

    static func album(_ id: String, title: String) -> Entity {
        Entity(type: "album", id: id, title: title, category: "Music/Rock", tags: ["shared"])
    }

    @Test("a write on A is visible on A when it returns and then on B, at the same version")
    func writeOnAServedByB() async throws {
        try await Self.withTwoInstances { _, a, b in
            for round in 0..<20 {
                let update = try a.upsert([Self.album("new-\(round)", title: "New \(round)")])
                #expect(update.applied == 1)
                #expect(update.catalogVersion == UInt64(round) + 2)
                #expect(
                    a.engine.snapshot.entity(EntityRef(type: "album", id: "new-\(round)")) != nil, "read your write")
                // How soon is measured by scripts/cluster-test; here only that B gets there.
                let served = await Self.waitUntil(seconds: 5) { b.engine.snapshot.version == update.catalogVersion }
                #expect(served != nil, "B never served A's write \(round)")
            }
            #expect(Self.contents(a) == Self.contents(b))

            let removed = try b.delete([EntityRef(type: "album", id: "base-3"), EntityRef(type: "album", id: "nope")])
            #expect(removed.applied == 1 && removed.errors.count == 1)
            #expect(await Self.waitUntil { a.engine.snapshot.version == removed.catalogVersion } != nil)
            #expect(a.engine.snapshot.entity(EntityRef(type: "album", id: "base-3")) == nil)
        }
    }

    @Test("two writers racing on one entity end in the same state on every instance")
    func racingWriters() async throws {
        try await Self.withTwoInstances { _, a, b in
            await withTaskGroup(of: Void.self) { group in
                for (name, replica) in [("a", a), ("b", b)] {
                    group.addTask {
                        for round in 0..<40 {
                            _ = try? replica.upsert([Self.album("contested", title: "\(name) \(round)")])
                            if round % 5 == 0 { _ = try? replica.delete([EntityRef(type: "album", id: "contested")]) }
                        }
                    }
                }
            }
            #expect(
                await Self.waitUntil { a.appliedPosition == b.appliedPosition && a.appliedPosition > 0 } != nil)
            #expect(a.engine.snapshot.version == b.engine.snapshot.version)
            #expect(Self.contents(a) == Self.contents(b))
        }
    }

    @Test("an instance that starts after the stream was trimmed catches up from the folded state")
    func lateStarterAfterTrim() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let a = Self.instance(redis, retainedEntries: 10)
        defer { a.stop() }
        #expect(await Self.waitUntil { a.isCaughtUp } != nil)
        for round in 0..<400 {
            try a.upsert([Self.album("churn-\(round % 50)", title: "Churn \(round)")])
        }
        try a.delete([EntityRef(type: "album", id: "base-0"), EntityRef(type: "album", id: "churn-7")])
        let oldest = try await redis.command("XRANGE", "{vi-continue:catalog}:stream", "-", "+", "COUNT", "1")
        guard case .array(let items) = oldest, case .array(let entry)? = items.first, case .bulk(let id)? = entry.first
        else {
            Issue.record("the stream is empty: \(oldest)")
            return
        }
        #expect(String(decoding: id, as: UTF8.self) != "0-1", "the stream was not trimmed; the test needs it")

        let late = Self.instance(redis)
        defer { late.stop() }
        #expect(await Self.waitUntil { late.isCaughtUp } != nil)
        #expect(late.appliedPosition == a.appliedPosition)
        #expect(late.engine.snapshot.version == a.engine.snapshot.version)
        #expect(Self.contents(late) == Self.contents(a))
        #expect(late.engine.snapshot.entity(EntityRef(type: "album", id: "base-0")) == nil)
    }

    @Test("Redis down: writes fail with a storage error, reads go on; Redis back: writes resume, all converge")
    func redisDownAndBack() async throws {
        try await Self.withTwoInstances { redis, a, b in
            let before = try a.upsert([Self.album("kept", title: "Kept")])
            #expect(await Self.waitUntil { b.engine.snapshot.version == before.catalogVersion } != nil)

            await redis.kill()
            let clock = ContinuousClock()
            let start = clock.now
            let error = #expect(throws: SearchError.self) { try a.upsert([Self.album("lost", title: "Lost")]) }
            #expect(error?.code == .storage)
            #expect(error?.message.contains("unreachable") == true, "\(String(describing: error))")
            #expect(clock.now - start < .seconds(3))
            #expect(a.engine.snapshot.entity(EntityRef(type: "album", id: "kept")) != nil, "reads go on")
            #expect(a.isCaughtUp, "a cut-off instance keeps serving what it has")

            try await redis.restart()
            let after = try await retrying { try b.upsert([Self.album("after", title: "After")]) }
            #expect(after.catalogVersion == before.catalogVersion + 1, "the acknowledged write survived the restart")
            #expect(await Self.waitUntil { a.engine.snapshot.version == after.catalogVersion } != nil)
            #expect(Self.contents(a) == Self.contents(b))
            #expect(a.engine.snapshot.entity(EntityRef(type: "album", id: "lost")) == nil)
        }
    }

    @Test("after writes and merges, a page token handed out by A pages on B: no repeat, no skip")
    func pageTokenAcrossInstances() async throws {
        try await Self.withTwoInstances { _, a, b in
            // Enough one-entity writes that the policy merges segments several times over.
            for round in 0..<70 {
                try (round % 2 == 0 ? a : b).upsert([Self.album("page-\(round)", title: "Paged \(round)")])
            }
            try a.delete([EntityRef(type: "album", id: "page-3"), EntityRef(type: "album", id: "base-5")])
            #expect(await Self.waitUntil { b.appliedPosition == a.appliedPosition } != nil)
            #expect(a.engine.snapshot.segments.count < 70, "no merge happened; the test needs them")
            #expect(a.engine.snapshot.generation == b.engine.snapshot.generation)

            let session = SessionRecord(
                id: "s", labels: [Label("shared", confidence: 0.9)], prints: [], source: .camera, locale: "",
                pageSize: 10, createdAtUnixMs: 0, expiresAtUnixMs: .max)
            var token = ""
            var seen = [EntityRef]()
            repeat {
                let onA = try a.engine.search(
                    session: session, request: SearchRequest(sessionID: "s", pageToken: token))
                if !token.isEmpty {
                    // The same page, asked of the other instance.
                    let onB = try b.engine.search(
                        session: session, request: SearchRequest(sessionID: "s", pageToken: token))
                    #expect(onB.results.map(\.entity) == onA.results.map(\.entity))
                }
                seen += onA.results.map(\.entity)
                token = onA.nextPageToken
            } while !token.isEmpty
            #expect(seen.count == Set(seen).count, "a result repeated")
            #expect(seen.count == 69, "results were skipped: \(seen.count) of 69")
        }
    }

    @Test("Redis back without its log: the instance stops serving and refuses writes, saying why")
    func redisLostItsLog() async throws {
        let redis = try await RedisTestServer()
        defer { redis.stop() }
        let a = Self.instance(redis)
        defer { a.stop() }
        #expect(await Self.waitUntil { a.isCaughtUp } != nil)
        for round in 0..<3 { try a.upsert([Self.album("gone-\(round)", title: "Gone \(round)")]) }
        await redis.kill()
        // As if it had run without an append-only file: it comes back empty.
        for name in try FileManager.default.contentsOfDirectory(atPath: redis.directory) where name.hasPrefix("append")
        {
            try FileManager.default.removeItem(atPath: redis.directory + "/" + name)
        }
        try await redis.restart()
        #expect(await Self.waitUntil { !a.isCaughtUp } != nil, "still serving on a log Redis lost")
        #expect(a.lastError?.contains("lost acknowledged writes") == true, "\(a.lastError ?? "")")
        let error = #expect(throws: SearchError.self) { try a.upsert([Self.album("after", title: "After")]) }
        #expect(error?.message.contains("refused until it is restored") == true)
        #expect(a.engine.snapshot.entity(EntityRef(type: "album", id: "gone-2")) != nil, "reads go on")
    }

    @Test("an instance is not serving until its first read reaches the stream's head")
    func notServingUntilCaughtUp() async throws {
        let redis = try await RedisTestServer()
        let changes = Mutex<[Bool]>([])
        await redis.kill()
        let a = Self.instance(redis) { serving in changes.withLock { $0.append(serving) } }
        defer {
            a.stop()
            redis.stop()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!a.isCaughtUp, "serving with Redis down at start, before catching up")
        try await redis.restart()
        #expect(await Self.waitUntil { a.isCaughtUp } != nil)
        #expect(changes.withLock { $0 } == [true])
    }

    /// Retries a write while the restarted Redis is still loading.
    private func retrying(_ body: () throws -> CatalogUpdate) async throws -> CatalogUpdate {
        for _ in 0..<50 {
            if let update = try? body() { return update }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try body()
    }
}
