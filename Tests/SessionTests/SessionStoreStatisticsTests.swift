import Foundation
import Testing

@testable import SearchSession

/// What each store says it holds and has done, for `/metrics`.
@Suite struct SessionStoreStatisticsTests {
    static func record(expiresAt: Int64) -> SessionRecord {
        SessionRecord(
            id: SessionRecord.newID(), labels: [], prints: [], source: .camera, locale: "", pageSize: 5,
            createdAtUnixMs: 0, expiresAtUnixMs: expiresAt)
    }

    @Test("the memory store counts saves, purges and evictions; stored is what it holds")
    func memory() async throws {
        let store = InMemorySessionStore(capacity: 3)
        for expiry in [10, 10, 100, 100, 100] as [Int64] { try await store.save(Self.record(expiresAt: expiry)) }
        #expect(
            store.statistics
                == SessionStoreStatistics(kind: "memory", stored: 3, created: 5, purged: 0, evicted: 2))
        #expect(try await store.purgeExpired(nowUnixMs: 50) == 0, "the two that expire first were evicted")
        #expect(try await store.purgeExpired(nowUnixMs: 200) == 3)
        #expect(
            store.statistics
                == SessionStoreStatistics(kind: "memory", stored: 0, created: 5, purged: 3, evicted: 2))
    }

    @Test("the SQLite store counts the rows it finds at open, then its saves and purges")
    func sqlite() async throws {
        let path = NSTemporaryDirectory() + "statistics-\(SessionRecord.newID()).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let store = try SQLiteSessionStore(path: path)
            for expiry in [10, 100, 100] as [Int64] { try await store.save(Self.record(expiresAt: expiry)) }
            #expect(store.statistics == SessionStoreStatistics(kind: "sqlite", stored: 3, created: 3, purged: 0))
        }
        let reopened = try SQLiteSessionStore(path: path)
        #expect(reopened.statistics == SessionStoreStatistics(kind: "sqlite", stored: 3, created: 0, purged: 0))
        #expect(try await reopened.purgeExpired(nowUnixMs: 50) == 1)
        try await reopened.save(Self.record(expiresAt: 100))
        #expect(reopened.statistics == SessionStoreStatistics(kind: "sqlite", stored: 3, created: 1, purged: 1))
    }
}
