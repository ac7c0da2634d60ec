import Synchronization
import Testing

@testable import SearchSession

/// Result links through an ``EntityLinker``: computed once per entity and snapshot, identical to
/// linking every result afresh, and never stale after a catalog change or a new linker.
@Suite struct LinkCacheTests {
    /// A linker for albums and artists only (other types keep the catalog's link), counting its calls.
    final class CountingLinker: Sendable {
        final class Counter: Sendable {
            let value = Mutex(0)
        }

        let calls = Counter()
        let linker: EntityLinker

        init(scheme: String) {
            let calls = calls
            linker = EntityLinker { ref in
                calls.value.withLock { $0 += 1 }
                return CountingLinker.link(ref, scheme: scheme)
            }
        }

        static func link(_ ref: EntityRef, scheme: String) -> String? {
            ["album", "artist"].contains(ref.type) ? "\(scheme)://\(ref.type)/\(ref.id)" : nil
        }

        var callCount: Int { calls.value.withLock { $0 } }
    }

    static let beatles = QueryRequest(descriptor: Descriptor(labels: [Label("beatles")]), limit: 10)

    /// The results with each link computed afresh: the linker's, else the catalog's own.
    static func uncached(_ results: [QueryResult], engine: SearchEngine, scheme: String) -> [QueryResult] {
        results.map { r in
            var r = r
            r.deepLink = CountingLinker.link(r.entity, scheme: scheme) ?? engine.snapshot.entity(r.entity)!.link
            return r
        }
    }

    @Test("sheet results carry the linker's links, the catalog's own for types it does not link")
    func sheetLinksMatchAnUncachedComputation() throws {
        let engine = Fixtures.engine()
        let counting = CountingLinker(scheme: "app")
        let plain = try engine.query(Self.beatles)
        let linked = try engine.query(Self.beatles, linker: counting.linker)
        #expect(Set(linked.map(\.entity.type)).isSuperset(of: ["album", "artist", "concert"]))
        #expect(linked == Self.uncached(plain, engine: engine, scheme: "app"))
        #expect(linked.contains { $0.deepLink == "app://album/abbey-road" })
    }

    @Test("the linker runs once per entity and snapshot, however often results repeat")
    func linksAreComputedOncePerSnapshot() throws {
        let engine = Fixtures.engine()
        let counting = CountingLinker(scheme: "app")
        let first = try engine.query(Self.beatles, linker: counting.linker)
        #expect(counting.callCount == first.count)
        for _ in 0..<5 { #expect(try engine.query(Self.beatles, linker: counting.linker) == first) }
        let session = SessionRecord(
            id: "s", labels: [Label("beatles")], prints: [], source: .camera, locale: "", pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
        let page = try engine.search(session: session, request: SearchRequest(sessionID: "s"), linker: counting.linker)
        let newEntities = Set(page.results.map(\.entity)).subtracting(first.map(\.entity))
        #expect(counting.callCount == first.count + newEntities.count)
    }

    @Test("an upsert or a delete starts a new cache, so a changed catalog link shows at once")
    func catalogChangesInvalidateTheCache() throws {
        let engine = Fixtures.engine()
        let counting = CountingLinker(scheme: "app")
        let concert = EntityRef(type: "concert", id: "beatles-berlin")
        func concertLink() throws -> String? {
            try engine.query(Self.beatles, linker: counting.linker).first { $0.entity == concert }?.deepLink
        }
        #expect(try concertLink() == "")
        var berlin = try #require(engine.snapshot.entity(concert))
        berlin.link = "music://concert/7"
        try engine.upsert([berlin])
        let before = counting.callCount
        #expect(try concertLink() == "music://concert/7")
        #expect(counting.callCount > before, "the new snapshot linked its results again")
        try engine.delete([EntityRef(type: "album", id: "let-it-be")])
        let after = try engine.query(Self.beatles, linker: counting.linker)
        #expect(!after.contains { $0.entity.id == "let-it-be" })
        #expect(after == Self.uncached(try engine.query(Self.beatles), engine: engine, scheme: "app"))
    }

    @Test(
        "a replaced snapshot keeps no links past the next write while it waits for page tokens, and links again if one comes"
    )
    func aReplacedSnapshotDropsItsLinks() throws {
        let engine = Fixtures.engine()
        let counting = CountingLinker(scheme: "app")
        let session = SessionRecord(
            id: "s", labels: [Label("beatles")], prints: [], source: .camera, locale: "", pageSize: 2,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
        let first = try engine.search(session: session, request: SearchRequest(sessionID: "s"), linker: counting.linker)
        let replaced = engine.snapshot
        #expect(replaced.linkCache.count == first.results.count)
        try engine.upsert([Entity(type: "album", id: "new", title: "New")])
        #expect(replaced !== engine.snapshot)
        // Kept until the next write, for the searches that took it just before this one.
        #expect(replaced.linkCache.count == first.results.count)
        try engine.upsert([Entity(type: "album", id: "newer", title: "Newer")])
        #expect(replaced.linkCache.count == 0)
        // Page 2 still reads the replaced snapshot, with the same links as ever.
        let second = try engine.search(
            session: session, request: SearchRequest(sessionID: "s", pageToken: first.nextPageToken),
            linker: counting.linker)
        #expect(!second.results.isEmpty)
        #expect(replaced.linkCache.count == second.results.count)
        for result in second.results {
            #expect(
                result.deepLink == CountingLinker.link(result.entity, scheme: "app")
                    ?? replaced.entity(result.entity)!.link)
        }
    }

    @Test("another linker (a reloaded route table) replaces the links cached on the same snapshot")
    func aNewLinkerReplacesTheCachedLinks() throws {
        let engine = Fixtures.engine()
        let old = CountingLinker(scheme: "old")
        let new = CountingLinker(scheme: "new")
        let version = engine.snapshot.version
        let first = try engine.query(Self.beatles, linker: old.linker)
        #expect(first.contains { $0.deepLink.hasPrefix("old://") })
        let second = try engine.query(Self.beatles, linker: new.linker)
        #expect(engine.snapshot.version == version)
        #expect(!second.contains { $0.deepLink.hasPrefix("old://") })
        #expect(second == Self.uncached(try engine.query(Self.beatles), engine: engine, scheme: "new"))
        #expect(new.callCount == second.count)
    }

    @Test("search pages carry the same links as an uncached computation, on every page")
    func searchPagesMatchAnUncachedComputation() throws {
        let engine = Fixtures.engine()
        let counting = CountingLinker(scheme: "app")
        let session = SessionRecord(
            id: "s", labels: [], prints: [], source: .camera, locale: "", pageSize: 3, createdAtUnixMs: 0,
            expiresAtUnixMs: .max)
        var token = ""
        var seen = 0
        repeat {
            let request = SearchRequest(sessionID: "s", pageToken: token)
            let linked = try engine.search(session: session, request: request, linker: counting.linker)
            let plain = try engine.search(session: session, request: request)
            #expect(linked.results == Self.uncached(plain.results, engine: engine, scheme: "app"))
            seen += linked.results.count
            token = linked.nextPageToken
        } while !token.isEmpty
        #expect(seen == engine.snapshot.count)
    }
}
