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
        let fresh = Self.underived(merged)
        #expect(Self.labelled(merged) == Self.labelled(fresh))
        #expect(merged.topCategories == fresh.topCategories)
    }

    @Test func aMergeTakesOverWhatTheSnapshotItReplacesDerived() throws {
        // Upserts that replace catalog entities (delete bits on the first segment) and add new
        // ones, then a delete that lands while the merge is built: the merged snapshot is derived
        // at once, and its counts are a fresh snapshot's, value by value.
        let engine = Self.engine(mergeFactor: 100)
        try engine.upsert(RandomCatalog.entities(40, seed: 70))
        try engine.upsert(RandomCatalog.entities(25, seed: 71, idPrefix: "n-"))
        try engine.upsert(RandomCatalog.entities(25, seed: 72, idPrefix: "m-"))
        let before = engine.snapshot
        before.prepareDerived()
        _ = SearchEngine.facets(
            before, docs: TextIndex.liveDocs("red", in: before), constraints: .unconstrained,
            request: SearchRequest(sessionID: "s"), covering: ["red"], termCountsFrom: 1)
        #expect(before.termCounts("red") != nil)
        let merge = SegmentMerge(1..<4, of: before)
        // Deleted while the merge is built: two of its sources' documents and five of the first segment's.
        let deleted =
            [
                RandomCatalog.entities(25, seed: 71, idPrefix: "n-")[3],
                RandomCatalog.entities(25, seed: 72, idPrefix: "m-")[7],
            ]
            + RandomCatalog.entities(40, seed: 70).prefix(5)
        let update = try engine.delete(deleted.map(\.ref))
        #expect(update.applied == 7)
        let current = engine.snapshot
        // A delete carries over the numbering and counts; the top categories come from them.
        current.prepareDerived()
        let merged = try #require(merge.install(into: current, generation: 99))
        #expect(merged.segments.count == 2)
        #expect(merged.isDerived)
        let fresh = Self.underived(merged)
        #expect(merged.count == fresh.count)
        #expect(Self.labelled(merged, bucketTotals: true) == Self.labelled(fresh, bucketTotals: true))
        #expect(merged.topCategories == fresh.topCategories)
        // The kept counts of "red" (a fifth of the titles) serve its hits; counting the hits one by
        // one in the same numbering gives the same facets.
        #expect(merged.termCounts("red") != nil)
        let hits = TextIndex.liveDocs("red", in: merged)
        let request = SearchRequest(sessionID: "s")
        let fromKept = SearchEngine.facets(
            merged, docs: hits, constraints: .unconstrained, request: request, covering: ["red"], termCountsFrom: 1)
        let counted = SearchEngine.facets(merged, docs: hits, constraints: .unconstrained, request: request)
        #expect(!counted.facets.isEmpty)
        #expect(fromKept == counted)
    }

    @Test func aReplacedSnapshotKeepsWhatItDerivedUntilTheNextWrite() throws {
        // A search that took the snapshot just before a write still finds its numbering and
        // counts after it; the write after that drops them (one replaced snapshot keeps them).
        let engine = Self.engine(mergeFactor: 100)
        engine.warmUp()
        engine.waitUntilIdle()
        let taken = engine.snapshot
        #expect(taken.isDerived)
        try engine.upsert(RandomCatalog.entities(5, seed: 80, idPrefix: "a-"))
        #expect(engine.snapshot !== taken)
        #expect(taken.isDerived, "dropped while a search may still be reading it")
        let next = engine.snapshot
        next.prepareDerived()
        try engine.upsert(RandomCatalog.entities(5, seed: 81, idPrefix: "b-"))
        #expect(!taken.isDerived, "kept past the next write")
        #expect(next.isDerived)
    }

    @Test func aReplacedSnapshotNothingHoldsAnyMoreIsFreed() throws {
        // Kept for no page token (none retained): the engine's note of the snapshot it replaced
        // must not keep it, and its segments, alive until the next write.
        let engine = SearchEngine(
            current: CatalogSnapshot(version: 1, entities: RandomCatalog.entities(50, seed: 4), synonyms: []),
            baseline: "test", nextGeneration: 2, log: nil, index: nil, retention: .seconds(900), maximumRetained: 0,
            nowMs: { 0 })
        weak let replaced = engine.snapshot
        #expect(replaced != nil)
        try engine.upsert(RandomCatalog.entities(5, seed: 82, idPrefix: "c-"))
        #expect(replaced == nil)
    }

    /// The same segments and delete bits as `snapshot`, with nothing derived yet: what a fresh
    /// start would compute.
    static func underived(_ snapshot: CatalogSnapshot) -> CatalogSnapshot {
        CatalogSnapshot(
            version: snapshot.version, generation: snapshot.generation, synonyms: [], analyzer: snapshot.analyzer,
            segments: snapshot.segments, deletes: snapshot.deletes)
    }

    /// The counts of every live document by what they count (type, category, attribute value,
    /// bucket, number text), without the numbers a numbering gave them or its values left at 0.
    /// With `bucketTotals`, each numeric attribute's buckets as one total: a merge keeps the
    /// layouts of the numbers its sources had (deleted ones too), a fresh numbering lays out the
    /// live ones.
    static func labelled(_ snapshot: CatalogSnapshot, bucketTotals: Bool = false) -> [String: Int32] {
        let numbering = snapshot.numbering
        let counts = snapshot.everythingCounts
        var out = [String: Int32]()
        func add(_ key: String, _ count: Int32) { if count != 0 { out[key, default: 0] += count } }
        for (number, count) in counts.types.enumerated() { add("type \(numbering.typeNames[number])", count) }
        for (number, count) in counts.categories.enumerated() {
            add("category \(numbering.categoryNames[number])", count)
        }
        for (number, count) in counts.values.enumerated() {
            let attribute = numbering.attributeNames[Int(numbering.valueAttribute[number])]
            add("\(attribute) = \(numbering.valueLabels[number])", count)
        }
        for (attribute, layout) in numbering.buckets.enumerated() {
            guard let layout else { continue }
            let start = Int(numbering.bucketStart[attribute])
            for bucket in 0..<layout.count {
                let place = bucketTotals ? "a bucket" : layout.label(bucket)
                add("\(numbering.attributeNames[attribute]) in \(place)", counts.buckets[start + bucket])
            }
        }
        for (attribute, labels) in counts.textNumbers {
            for (label, count) in labels { add("\(numbering.attributeNames[Int(attribute)]) = \(label)", count) }
        }
        return out
    }
}
