import Testing

@testable import SearchSession

/// Which terms' counts a snapshot keeps: the most asked for, steadily, when more are asked for
/// than fit.
@Suite struct KeptTermCountsTests {
    /// Counts that take `bytes` bytes.
    static func counts(bytes: Int) -> CompactFacetCounts {
        CompactFacetCounts(
            FacetCounts(types: [], categories: [], values: CountColumn(repeatElement(1, count: bytes)), buckets: []))
    }

    /// Asks for `term` as a search does, keeping its counts when it had none.
    static func search(_ term: String, in kept: inout KeptTermCounts, budget: Int = 1_000) -> Bool {
        if kept.ask(term) != nil { return true }
        kept.keep(counts(bytes: 100), of: term, budget: budget)
        return false
    }

    @Test func moreTermsAskedInTurnThanFitKeepAStableSet() {
        var kept = KeptTermCounts()
        let terms = (0..<15).map { "term\($0)" }
        var keptAfterSecondRound = Set<String>()
        for round in 0..<6 {
            var found = 0
            for term in terms where Self.search(term, in: &kept) { found += 1 }
            if round == 1 { keptAfterSecondRound = Set(kept.order) }
            // Ten fit; pushing out the oldest would find none of them a round later.
            if round >= 1 { #expect(found == 10, "round \(round)") }
            #expect(kept.bytes <= 1_000)
        }
        #expect(Set(kept.order) == keptAfterSecondRound)
    }

    @Test func aTermAskedMoreOftenTakesTheLeastAskedPlace() {
        var kept = KeptTermCounts()
        for index in 0..<10 { _ = Self.search("old\(index)", in: &kept) }
        for index in 1..<10 { _ = Self.search("old\(index)", in: &kept) }
        // Asked once, as often as old0: not kept.
        #expect(!Self.search("new", in: &kept))
        #expect(kept.counts["new"] == nil)
        // Asked twice: it takes old0's place, the one asked for least.
        #expect(!Self.search("new", in: &kept))
        #expect(kept.counts["new"] != nil)
        #expect(kept.counts["old0"] == nil)
        #expect(kept.order.count == 10)
        #expect(kept.bytes == 1_000)
    }

    @Test func termsThatStopComingLoseTheirPlaces() {
        var kept = KeptTermCounts()
        for _ in 0..<1_000 {
            for index in 0..<10 { _ = Self.search("old\(index)", in: &kept) }
        }
        // Fewer times each than the old ones were (about 400 against 1,000), but after them:
        // the halvings leave the old terms a fraction of their asks.
        for step in 0..<(4 * KeptTermCounts.halvingPeriod) { _ = Self.search("new\(step % 10)", in: &kept) }
        #expect(Set(kept.order) == Set((0..<10).map { "new\($0)" }))
    }

    @Test func admitsSaysBeforehandWhetherCountsWouldBeKept() {
        var kept = KeptTermCounts()
        for index in 0..<10 { _ = Self.search("old\(index)", in: &kept) }
        for index in 1..<10 { _ = Self.search("old\(index)", in: &kept) }
        _ = kept.ask("new")
        #expect(!kept.admits("new", bytes: 100, budget: 1_000))
        _ = kept.ask("new")
        // Asked twice: it may push out old0 (asked once), but not a second term (asked twice).
        #expect(kept.admits("new", bytes: 100, budget: 1_000))
        #expect(!kept.admits("new", bytes: 200, budget: 1_000))
        #expect(!kept.admits("old3", bytes: 100, budget: 1_000))
        #expect(!kept.admits("new", bytes: 2_000, budget: 1_000))
        kept.keep(Self.counts(bytes: 100), of: "new", budget: 1_000)
        #expect(kept.counts["new"] != nil)
        #expect(kept.counts["old0"] == nil)
    }

    @Test func countsLargerThanTheBudgetAreNotKept() {
        var kept = KeptTermCounts()
        _ = kept.ask("huge")
        kept.keep(Self.counts(bytes: 2_000), of: "huge", budget: 1_000)
        #expect(kept.counts.isEmpty)
        #expect(kept.bytes == 0)
    }

    @Test func updatingKeepsTheOrderAndDropsWhatItLeavesOut() {
        var kept = KeptTermCounts()
        for term in ["a", "b", "c"] { _ = Self.search(term, in: &kept) }
        let updated = kept.updating { term, counts in term == "b" ? nil : Self.counts(bytes: 50) }
        #expect(updated.order == ["a", "c"])
        #expect(updated.bytes == 100)
        #expect(updated.counts["a"] == Self.counts(bytes: 50))
    }
}
