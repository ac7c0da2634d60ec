import Foundation
import Testing

@testable import SearchSession

@Suite struct SessionStoreTests {
    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "sessions-\(SessionRecord.newID()).sqlite"
    }

    static func record(expires: Int64 = 2_000_000_000_000) -> SessionRecord {
        SessionRecord(
            id: SessionRecord.newID(), labels: [Label("guitar", confidence: 0.8), Label("amp")],
            prints: [FeaturePrint(model: "m3", values: [1, 0.5, 0.25])], source: .screenshot, locale: "de-DE",
            queryText: "", pageSize: 30, createdAtUnixMs: 1_000, expiresAtUnixMs: expires)
    }

    @Test func sessionIdsAre128RandomBits() {
        let ids = (0..<1000).map { _ in SessionRecord.newID() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy(SessionRecord.isWellFormed))
    }

    @Test func aSessionSurvivesClosingAndReopeningTheDatabase() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let r = Self.record()
        do {
            let store = try SQLiteSessionStore(path: path)
            try await store.save(r)
        }
        let reopened = try SQLiteSessionStore(path: path)
        #expect(try await reopened.load(id: r.id, nowUnixMs: 5_000) == r)
    }

    @Test func aCommittedSessionSurvivesKillDashNine() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let r = Self.record()
        let blob = Array(try JSONEncoder().encode(r))
        let id = r.id
        let expires = r.expiresAtUnixMs
        // A process of its own commits through its own connection, then dies without closing
        // anything. It is spawned, not forked: a fork of this many-threaded process could
        // inherit a lock another test's SQLite call holds, and hang.
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, blob = blob as [UInt8], id = id as String, expires = expires as Int64] in
            if let own = try? SQLiteSessionStore(path: path) {
                try? own.save(encoded: blob, id: id, expiresAtUnixMs: expires)
            }
            kill(getpid(), SIGKILL)
        }
        let reopened = try SQLiteSessionStore(path: path)
        #expect(try await reopened.load(id: r.id, nowUnixMs: 5_000) == r)
    }

    @Test func checkpointsRunInTheBackgroundAndKeepTheWALBounded() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var saved = [SessionRecord]()
        do {
            let store = try SQLiteSessionStore(path: path)
            // Saves back to back, the hardest case: the WAL can start over only when a commit
            // begins with every frame copied, and here commits land during every copy.
            for _ in 0..<6_000 {
                let record = Self.record()
                try await store.save(record)
                saved.append(record)
            }
            // One every 256 saves at most (none starts while one runs).
            #expect(store.checkpointsFinished > 0)
            // 6,000 saves write some 24,000 frames (about 94 MiB of 4 KiB pages) to a WAL that is
            // never checkpointed; here it starts over once a copy finds it past 4,096 frames
            // (16 MiB), and the file stays at the most any stretch between two needed.
            let walBytes = (try FileManager.default.attributesOfItem(atPath: path + "-wal"))[.size] as? Int ?? 0
            #expect(walBytes < 32 << 20, "WAL at \(walBytes) bytes")
        }
        let reopened = try SQLiteSessionStore(path: path)
        for record in saved { #expect(try await reopened.load(id: record.id, nowUnixMs: 5_000) == record) }
    }

    @Test(arguments: [false, true])
    func unknownAndExpiredIdsAreNotFoundAndExpiredOnesArePurged(sqlite: Bool) async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store: any SessionStore = sqlite ? try SQLiteSessionStore(path: path) : InMemorySessionStore()
        let live = Self.record(expires: 10_000)
        let dead = Self.record(expires: 2_000)
        try await store.save(live)
        try await store.save(dead)
        #expect(try await store.load(id: live.id, nowUnixMs: 5_000) == live)
        await #expect(throws: SearchError.sessionNotFound(dead.id)) {
            try await store.load(id: dead.id, nowUnixMs: 5_000)
        }
        let unknown = SessionRecord.newID()
        await #expect(throws: SearchError.sessionNotFound(unknown)) {
            try await store.load(id: unknown, nowUnixMs: 5_000)
        }
        await #expect(throws: SearchError.self) { try await store.load(id: "'; DROP TABLE sessions; --", nowUnixMs: 0) }
        #expect(try await store.purgeExpired(nowUnixMs: 5_000) == 1)
        #expect(try await store.load(id: live.id, nowUnixMs: 5_000) == live)
    }

    @Test func captureThroughSQLiteContinuesOnAnotherInstance() async throws {
        let path = Self.temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let engine = Fixtures.engine()
        let captured = try await SearchSessions(engine: engine, store: try SQLiteSessionStore(path: path))
            .capture(Descriptor(labels: [Label("beatles")]), pageSize: 2)
        let other = SearchSessions(engine: Fixtures.engine(), store: try SQLiteSessionStore(path: path))
        let page2 = try await other.search(
            SearchRequest(sessionID: captured.sessionID, pageToken: captured.nextPageToken))
        #expect(page2.totalHits == captured.totalHits)
        #expect(Set(page2.results.map(\.entity)).isDisjoint(with: captured.results.map(\.entity)))
    }

    @Test func theMemoryStoreDropsTheOldestSessionsPastItsCapacity() async throws {
        let store = InMemorySessionStore(capacity: 3)
        var records = [SessionRecord]()
        for _ in 0..<5 {
            let record = Self.record(expires: 10_000)
            records.append(record)
            try await store.save(record)
        }
        #expect(store.count == 3)
        for old in records.prefix(2) {
            await #expect(throws: SearchError.sessionNotFound(old.id)) {
                try await store.load(id: old.id, nowUnixMs: 0)
            }
        }
        for kept in records.suffix(3) { #expect(try await store.load(id: kept.id, nowUnixMs: 0) == kept) }
        // Saving a kept session again does not count it twice.
        try await store.save(records[4])
        #expect(store.count == 3)
    }

    @Test func theMemoryStoreStaysWithinItsCapacityAcrossPurgesAndManySaves() async throws {
        let store = InMemorySessionStore(capacity: 100)
        for round in 0..<50 {
            for _ in 0..<100 { try await store.save(Self.record(expires: Int64(round * 10 + 5))) }
            #expect(store.count <= 100)
            _ = try await store.purgeExpired(nowUnixMs: Int64(round * 10 + 5))
            #expect(store.count == 0)
        }
    }
}
