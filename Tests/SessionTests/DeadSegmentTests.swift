import Testing

@testable import SearchSession

/// Segments whose documents were all replaced or deleted leave the index at once, and mostly
/// deleted small ones are rewritten: under writes that replace the same entities again and
/// again, they were kept (mapped, and read by every search) until their size tier filled up.
@Suite struct DeadSegmentTests {
    /// An engine whose size tiers never merge on their own (a factor of 100), so what merges is
    /// what the delete rules pick.
    static func engine() -> SearchEngine {
        var policy = MergePolicy()
        policy.mergeFactor = 100
        return SearchEngine(
            current: CatalogSnapshot(version: 1, entities: RandomCatalog.entities(200, seed: 9), synonyms: []),
            baseline: "test", nextGeneration: 2, log: nil, index: nil, retention: .seconds(900), maximumRetained: 100,
            mergePolicy: policy, nowMs: { 0 })
    }

    static func batch(_ round: Int, count: Int = 20) -> [Entity] {
        RandomCatalog.entities(count, seed: 90 + UInt64(round), idPrefix: "w\(round)-")
    }

    @Test func aSegmentWhoseDocumentsWereAllReplacedIsDroppedAndTheDerivedCountsStayExact() throws {
        // On snapshots, not through an engine: its merge lane would drop the segment first.
        var snapshot = CatalogSnapshot(version: 1, entities: RandomCatalog.entities(200, seed: 9), synonyms: [])
        snapshot = snapshot.applying(.upsert(Self.batch(1)), version: 2, generation: 2).0
        snapshot = snapshot.applying(.upsert(Self.batch(2)), version: 3, generation: 3).0
        // The first batch again, changed: every document of its segment is deleted.
        let replaced = Self.batch(1).map { entity in
            var entity = entity
            entity.subtitle = "again"
            return entity
        }
        let before = snapshot.applying(.upsert(replaced), version: 4, generation: 4).0
        before.prepareDerived()
        #expect(before.segments.count == 4)
        #expect(before.deletes[1].count == before.segments[1].count)
        var policy = MergePolicy()
        policy.mergeFactor = 100
        let run = try #require(policy.segmentsToMerge(in: before))
        #expect(run == 1..<2)
        let merge = SegmentMerge(run, of: before)
        #expect(merge.merged == nil)
        let after = try #require(merge.install(into: before, generation: 5))
        #expect(policy.segmentsToMerge(in: after) == nil)
        #expect(after.segments.count == 3)
        #expect(!after.segments.contains { $0 === before.segments[1] })
        #expect(after.count == before.count)
        #expect(after.entities == before.entities)
        #expect(after.entities.filter { $0.subtitle == "again" }.count == replaced.count)
        // What the replaced snapshot derived is taken over, and equals a snapshot derived afresh.
        #expect(after.isDerived)
        let fresh = DerivedBehindSearchesTests.underived(after)
        #expect(DerivedBehindSearchesTests.labelled(after) == DerivedBehindSearchesTests.labelled(fresh))
        #expect(after.topCategories == fresh.topCategories)
        #expect(TextIndex.liveDocs("red", in: after).count == TextIndex.liveDocs("red", in: fresh).count)
    }

    @Test func aSmallSegmentMoreThanHalfDeletedIsRewrittenWithItsLiveDocumentsOnly() throws {
        let engine = Self.engine()
        let written = Self.batch(1)
        try engine.upsert(written)
        try engine.delete(written.prefix(11).map(\.ref))  // 11 of 20: past half, far below 1,000
        engine.mergeUntilSettled()
        let snapshot = engine.snapshot
        #expect(snapshot.segments.count == 2)
        #expect(snapshot.segments[1].count == 9)
        #expect(snapshot.deletes[1].count == 0)
        let live = Set(snapshot.entities.map(\.ref))
        #expect(live.isSuperset(of: written.suffix(9).map(\.ref)))
        #expect(live.isDisjoint(with: written.prefix(11).map(\.ref)))
    }

    @Test func aSegmentHalfDeletedOrLessStays() throws {
        let engine = Self.engine()
        let written = Self.batch(1)
        try engine.upsert(written)
        try engine.delete(written.prefix(10).map(\.ref))
        engine.mergeUntilSettled()
        #expect(engine.snapshot.segments.count == 2)
        #expect(engine.snapshot.segments[1].count == 20)
    }

    @Test func theLastSegmentStaysWhenEverythingIsDeleted() throws {
        let engine = SearchEngine(entities: RandomCatalog.entities(30, seed: 4))
        try engine.delete(engine.snapshot.entities.map(\.ref))
        engine.mergeUntilSettled()
        #expect(engine.snapshot.segments.count == 1)
        #expect(engine.snapshot.count == 0)
        try engine.upsert(Self.batch(1))
        engine.mergeUntilSettled()
        // The emptied first segment goes once another one holds the catalog.
        #expect(engine.snapshot.segments.count == 1)
        #expect(engine.snapshot.count == 20)
    }

    @Test func aReopenedLogReplaysTheDropsAsTheyHappenedLive() throws {
        let log = CatalogLogTests.TemporaryLog()
        let file = CatalogFile(entities: RandomCatalog.entities(100, seed: 12), synonyms: [], errors: [])
        let engine = try SearchEngine(catalog: file, log: log.open())
        for round in 0..<3 {
            try engine.upsert(
                Self.batch(1).map { entity in
                    var entity = entity
                    entity.subtitle = "round \(round)"
                    return entity
                })
        }
        engine.waitUntilIdle()
        engine.mergeUntilSettled()
        #expect(engine.snapshot.segments.count == 2, "the first two rounds' segments were dropped")
        let reopened = try SearchEngine(catalog: file, log: log.open())
        #expect(reopened.snapshot.segments.count == engine.snapshot.segments.count)
        #expect(reopened.snapshot.entities == engine.snapshot.entities)
        #expect(reopened.snapshot.entities.filter { $0.subtitle == "round 2" }.count == 20)
    }
}
