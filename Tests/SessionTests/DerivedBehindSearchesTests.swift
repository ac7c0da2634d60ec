import Testing

@_spi(Benchmarks) @testable import SearchSession

/// What a snapshot derives once (facet numbering, counts of every live document, top
/// categories) is derived on the merge lane, so the first search after a start or a merge does
/// not pay for it: 4–10 ms at 100k entities, ten times that at 1M.
@Suite struct DerivedBehindSearchesTests {
    static func engine(mergeFactor: Int = 4) -> SearchEngine {
        var policy = MergePolicy()
        policy.mergeFactor = mergeFactor
        return SearchEngine(
            current: CatalogSnapshot(version: 1, entities: RandomCatalog.entities(300, seed: 3), synonyms: []),
            baseline: "test", nextGeneration: 2, log: nil, index: nil, retention: .seconds(900), maximumRetained: 100,
            mergePolicy: policy, nowMs: { 0 })
    }

    @Test func warmingUpDerivesTheCurrentSnapshotWithoutASearch() {
        let engine = Self.engine()
        #expect(!engine.snapshot.isDerived)
        engine.warmUp()
        engine.waitUntilIdle()
        #expect(engine.snapshot.isDerived)
    }

    @Test func aMergedSnapshotIsDerivedBeforeAnySearchAndEqualsOneDerivedAfresh() throws {
        // Four small segments on the catalog's one: only the last upsert asks for a merge (of
        // the four), so no write lands after it and the merged snapshot stays the current one.
        let engine = Self.engine(mergeFactor: 4)
        for round in 0..<4 {
            try engine.upsert(RandomCatalog.entities(10, seed: 50 + UInt64(round), idPrefix: "w\(round)-"))
        }
        engine.waitUntilIdle()
        let merged = engine.snapshot
        #expect(merged.segments.count == 2, "the upserts' four segments were merged into one")
        #expect(merged.isDerived)
        let fresh = CatalogSnapshot(
            version: merged.version, generation: merged.generation, synonyms: [], analyzer: merged.analyzer,
            segments: merged.segments, deletes: merged.deletes)
        #expect(merged.everythingCounts == fresh.everythingCounts)
        #expect(merged.topCategories == fresh.topCategories)
    }
}
