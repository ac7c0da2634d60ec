import Testing

@testable import SearchSession

/// What a snapshot derives (the counts of every live document, kept term counts) carried over a
/// write instead of computed again: always equal to counts made afresh on the new snapshot.
@Suite struct DerivedCarryOverTests {
    static let terms = ["item", "red", "song", "blue"]

    /// Keeps each term's counts on `snapshot`, as a search whose hits are all its documents does.
    static func keepTermCounts(_ snapshot: CatalogSnapshot) {
        for term in terms {
            _ = SearchEngine.facets(
                snapshot, docs: TextIndex.liveDocs(term, in: snapshot), constraints: .unconstrained,
                request: SearchRequest(sessionID: "s"),
                covering: ["item", term], splitFrom: .max, termCountsFrom: 0)
        }
    }

    @Test func countsCarriedOverWritesEqualCountsMadeAfresh() throws {
        var snapshot = CatalogSnapshot(version: 1, entities: RandomCatalog.entities(900, seed: 21), synonyms: [])
        var rng = SplitMix64(state: 9)
        var carried = 0
        for round in 0..<12 {
            _ = snapshot.everythingCounts
            Self.keepTermCounts(snapshot)
            let change: CatalogChange
            var layoutChanges = false
            switch round % 4 {
            case 0:
                // Replaces existing entities (their old documents are deleted).
                change = .upsert(RandomCatalog.entities(30, seed: 100 + UInt64(round)))
            case 1:
                // New entities, one with a new type, category and attribute.
                var fresh = RandomCatalog.entities(20, seed: 200 + UInt64(round), idPrefix: "n\(round)-")
                fresh[0].type = "podcast"
                fresh[0].category = "Talk/Science"
                fresh[0].attributes["rating"] = .number(4)
                fresh[1].attributes["size"] = .string("XL")
                change = .upsert(fresh)
            case 2:
                let live = snapshot.entities
                change = .delete((0..<25).map { _ in live.randomElement(using: &rng)!.ref })
            default:
                // A year outside the range: the bucket layout changes, and counts start afresh.
                var fresh = RandomCatalog.entities(5, seed: 300 + UInt64(round), idPrefix: "y\(round)-")
                fresh[0].attributes["year"] = .number(Double(3000 + round))
                change = .upsert(fresh)
                layoutChanges = true
            }
            let (next, _) = snapshot.applying(change, version: UInt64(round + 2), generation: 1)
            if !layoutChanges {
                #expect(Self.terms.allSatisfy { next.termCounts($0) != nil }, "round \(round)")
            }
            if next.termCounts("red") != nil { carried += 1 }
            // The first year past the range widens the buckets: nothing is carried.
            if round == 3 { #expect(next.termCounts("red") == nil) }
            let fresh = CatalogSnapshot(
                version: next.version, generation: 2, synonyms: [], analyzer: next.analyzer, segments: next.segments,
                deletes: next.deletes)
            Self.keepTermCounts(fresh)
            #expect(next.everythingCounts == fresh.everythingCounts, "round \(round)")
            for term in Self.terms {
                // Not carried (a layout changed): the next search keeps them again.
                guard let kept = next.termCounts(term) else { continue }
                #expect(kept == fresh.termCounts(term), "round \(round) term \(term)")
            }
            #expect(next.topCategories == fresh.topCategories)
            snapshot = next
        }
        #expect(carried >= 9)
    }

    @Test func aReplacedSnapshotHandsItsTermCountsOverInsteadOfKeepingACopy() throws {
        var policy = MergePolicy()
        policy.mergeFactor = 100
        let engine = SearchEngine(
            current: CatalogSnapshot(version: 1, entities: RandomCatalog.entities(600, seed: 5), synonyms: []),
            baseline: "test", nextGeneration: 2, log: nil, index: nil, retention: .seconds(900), maximumRetained: 100,
            mergePolicy: policy, nowMs: { 0 })
        let replaced = engine.snapshot
        _ = replaced.everythingCounts
        Self.keepTermCounts(replaced)
        #expect(Self.terms.allSatisfy { replaced.termCounts($0) != nil })
        try engine.upsert(RandomCatalog.entities(10, seed: 6, idPrefix: "new-"))
        let current = engine.snapshot
        #expect(current !== replaced)
        // The new snapshot holds the counts, brought up to date; the replaced one none, and a
        // search that straddled the write keeps none there either.
        #expect(Self.terms.allSatisfy { current.termCounts($0) != nil })
        #expect(Self.terms.allSatisfy { replaced.termCounts($0) == nil })
        Self.keepTermCounts(replaced)
        #expect(Self.terms.allSatisfy { replaced.termCounts($0) == nil })
        // Its searches still answer, with the counts made from their hits.
        let hits = TextIndex.liveDocs("red", in: replaced)
        let request = SearchRequest(sessionID: "s")
        let listing = SearchEngine.facets(
            replaced, docs: hits, constraints: .unconstrained, request: request, covering: ["red"], termCountsFrom: 0)
        #expect(!listing.facets.isEmpty)
        let fresh = CatalogSnapshot(
            version: 1, generation: 9, synonyms: [], analyzer: replaced.analyzer, segments: replaced.segments,
            deletes: replaced.deletes)
        #expect(listing == SearchEngine.facets(fresh, docs: hits, constraints: .unconstrained, request: request))
    }
}
