import Testing

@testable import SearchSession

/// What keys an evaluation in the cache: everything of its session that the evaluation reads.
@Suite struct EvaluationCacheKeyTests {
    static func record(maxDistance: Float?, locale: String = "") -> SessionRecord {
        SessionRecord(
            id: "same-id", labels: [Label("red")], prints: [], source: .camera, locale: locale, pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: .max, maxDistance: maxDistance)
    }

    @Test func aRecordWithAnotherPrintDistanceHasAnotherContent() {
        // A caller may pass another record under the same id; a picture match's distance decides
        // which documents are hits, so it is part of the content an evaluation is kept by.
        let hashes = [nil, 0.1, 0.2, 0].map { EvaluationCache.contentHash(of: Self.record(maxDistance: $0)) }
        #expect(Set(hashes).count == 4)
        #expect(
            EvaluationCache.contentHash(of: Self.record(maxDistance: 0.1))
                == EvaluationCache.contentHash(of: Self.record(maxDistance: 0.1)))
        #expect(
            EvaluationCache.contentHash(of: Self.record(maxDistance: nil))
                != EvaluationCache.contentHash(of: Self.record(maxDistance: nil, locale: "de")))
    }
}

/// The evaluation cache past its budget: the least recently used entries go first.
@Suite struct EvaluationCacheEvictionTests {
    static func key(_ i: Int) -> EvaluationCache.Key {
        EvaluationCache.Key(
            session: "s\(i)", content: 0, refinement: 0, version: 1, generation: 0, maxFacetValues: 0,
            maxFacets: 0, includedFacets: [], linker: nil)
    }

    static let evaluation = SearchEngine.Evaluation(
        queryText: "red", chips: [], groups: [], hits: [], total: 0,
        facets: [Facet(name: "colour", kind: .string, values: [FacetValue(value: "red", count: 3, selected: false)])],
        moreFacets: [], filters: [], relaxations: [], browse: [])

    @Test func theLeastRecentlyUsedGoFirstAndTheBudgetHolds() {
        // Over 512 bytes an entry: a 30 KB budget holds fewer than sixty.
        let cache = EvaluationCache(budget: 30_000)
        for i in 0..<100 { cache.store(Self.evaluation, for: Self.key(i)) }
        let held = (0..<100).filter { cache.evaluation(Self.key($0), needed: 0) != nil }
        #expect(!held.isEmpty && held.count < 100)
        // Those still held were the last stored; entry 0 is gone.
        #expect(held == Array((100 - held.count)..<100))
        // Using the oldest held one makes it the newest: a thousand more stores, a few at a time
        // with it used between them, never drop it, while all the others go.
        let kept = held[0]
        #expect(cache.evaluation(Self.key(kept), needed: 0) != nil)
        for i in 100..<1_100 {
            cache.store(Self.evaluation, for: Self.key(i))
            if i % 10 == 0 { #expect(cache.evaluation(Self.key(kept), needed: 0) != nil, "after \(i)") }
        }
        #expect(cache.evaluation(Self.key(kept), needed: 0) != nil)
        #expect(held.dropFirst().allSatisfy { cache.evaluation(Self.key($0), needed: 0) == nil })
        let recent = (1_000..<1_100).filter { cache.evaluation(Self.key($0), needed: 0) != nil }
        #expect(recent.count > 20)
    }

    @Test func aStorePastTheBudgetDropsOneEntryNotAQuarter() {
        // Entries of about one size: once full, each store drops the one least recently used,
        // so the cache stays full instead of emptying a quarter (a dozen entries) at once every
        // so often. "About": one entry more or less (an entry's bytes once counted its arrays'
        // capacities, which the allocator rounds: CI runs saw 52 against 51, 48 against 46; they
        // count lengths now).
        let cache = EvaluationCache(budget: 30_000)
        for i in 0..<100 { cache.store(Self.evaluation, for: Self.key(i)) }
        let full = cache.count
        let aboutFull = (full - 1)...(full + 1)
        for i in 100..<600 {
            cache.store(Self.evaluation, for: Self.key(i))
            #expect(aboutFull.contains(cache.count), "after \(i): \(cache.count) held, \(full) when full")
        }
        // Lookups between stores (their uses are noted too) change nothing of that.
        for i in 600..<5_000 {
            _ = cache.evaluation(Self.key(i - 1), needed: 0)
            cache.store(Self.evaluation, for: Self.key(i))
        }
        #expect(aboutFull.contains(cache.count))
        #expect(cache.evaluation(Self.key(4_999), needed: 0) != nil)
        #expect(cache.evaluation(Self.key(4_999 - full - 1), needed: 0) == nil)
    }
}
