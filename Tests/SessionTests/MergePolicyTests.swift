import Testing

@testable import SearchSession

/// The merge policy under a long stream of small writes on top of a large catalog: what each
/// document costs in rewrites, and that no merge takes in the catalog's large segments for the
/// sake of small ones.
@Suite struct MergePolicyTests {
    typealias Sizes = MergePolicy.Sizes

    /// Appends `batches` segments of `batchSize` documents to `segments`, merging what the policy
    /// asks for after each (as the merge lane does); returns the documents each merge rewrote.
    static func stream(
        _ batches: Int, of batchSize: Int, onto segments: inout [Sizes], policy: MergePolicy = MergePolicy(),
        afterEach check: ([Sizes]) -> Void = { _ in }
    ) -> [Int] {
        var merges = [Int]()
        for _ in 0..<batches {
            segments.append(Sizes(documents: batchSize, deleted: 0))
            merges += settle(&segments, policy: policy)
            check(segments)
        }
        return merges
    }

    /// Merges what the policy asks for until it asks for nothing; returns the documents each
    /// merge rewrote.
    static func settle(_ segments: inout [Sizes], policy: MergePolicy = MergePolicy()) -> [Int] {
        var merges = [Int]()
        while let run = policy.segmentsToMerge(in: segments) {
            let live = segments[run].reduce(0) { $0 + $1.documents - $1.deleted }
            merges.append(live)
            segments.replaceSubrange(run, with: live > 0 ? [Sizes(documents: live, deleted: 0)] : [])
        }
        return merges
    }

    /// A catalog shaped as a 1M index is after a few write runs: one large segment, a mix of
    /// medium and small ones behind it, in no tier order.
    static let writtenCatalog: [Sizes] =
        [Sizes(documents: 1_000_000, deleted: 84_000)]
        + [800, 800, 6_400, 800, 800, 6_400, 800, 800, 6_400, 800, 100, 800, 6_400, 800, 100, 100, 100, 100, 100]
        .map { Sizes(documents: $0, deleted: 0) }
        + [800, 800, 50_000, 100, 100, 100, 100, 100, 100, 100].map { Sizes(documents: $0, deleted: 0) }

    @Test func smallWritesOnAWrittenCatalogCostAFewRewritesEachAndLeaveItsLargeSegment() {
        var segments = Self.writtenCatalog
        var most = 0
        let merges = Self.stream(2_000, of: 100, onto: &segments) { most = max(most, $0.count) }
        // Every document written is rewritten about log₈(2,000) ≈ 3.7 times (with the older
        // segments merged once among themselves), not once per merge: 22 a document when past the
        // cap the fewest documents merged, 142 when the newest did.
        let written = 2_000 * 100
        #expect(merges.reduce(0, +) <= 4 * written)
        #expect(segments.first == Self.writtenCatalog.first)
        #expect(most <= MergePolicy().maximumSegments)
    }

    @Test func aLongStreamOnAFreshCatalogMergesOnlyWhatWasWritten() {
        var segments = [Sizes(documents: 1_000_000, deleted: 0)]
        var most = 0
        let merges = Self.stream(20_000, of: 100, onto: &segments) { most = max(most, $0.count) }
        #expect(merges.reduce(0, +) <= 4 * 20_000 * 100)
        // The largest merge is of the batches' own tiers: 100 × 8⁴ documents.
        #expect(merges.max()! <= 100 * 8 * 8 * 8 * 8)
        #expect(segments.first == Sizes(documents: 1_000_000, deleted: 0))
        #expect(most <= MergePolicy().maximumSegments)
    }

    @Test func pastTheCapTheMostEvenNeighboursAreMergedWhateverTheirTiers() {
        // No eight neighbours share a tier: 10,000 (tier 4) and 100 (tier 2) alternate, and
        // 4,000 (tier 3) and 4,100 (tier 4) alternate at 10..<18, the most even run.
        var sizes = (0..<33).map { Sizes(documents: $0.isMultiple(of: 2) ? 10_000 : 100, deleted: 0) }
        #expect(MergePolicy().segmentsToMerge(in: sizes) == 25..<33)
        for position in 10..<18 { sizes[position].documents = position.isMultiple(of: 2) ? 4_000 : 4_100 }
        #expect(MergePolicy().segmentsToMerge(in: sizes) == 10..<18)
        #expect(MergePolicy().segmentsToMerge(in: Array(sizes.prefix(32))) == nil)
    }

    @Test func segmentsPiledUpDuringALongMergeAreMergedManyAtOnce() {
        // 110 batches of 100 written while a merge ran, behind a large catalog's segments.
        var segments = [Sizes(documents: 1_000_000, deleted: 0)]
        segments += Array(repeating: Sizes(documents: 6_400, deleted: 0), count: 3)
        segments += Array(repeating: Sizes(documents: 800, deleted: 0), count: 5)
        segments += Array(repeating: Sizes(documents: 100, deleted: 0), count: 110)
        #expect(MergePolicy().segmentsToMerge(in: segments) == 55..<119)
        let drained = Self.settle(&segments).count
        #expect(drained == 2)
        #expect(segments.count <= MergePolicy().maximumSegments)
    }

    @Test func theLowestTierWithEnoughNeighboursMergesFirst() {
        let large = Array(repeating: Sizes(documents: 1_000, deleted: 0), count: 8)
        let small = Array(repeating: Sizes(documents: 100, deleted: 0), count: 8)
        #expect(MergePolicy().segmentsToMerge(in: large + small) == 8..<16)
        #expect(MergePolicy().segmentsToMerge(in: small + large) == 0..<8)
        // Seven of a tier are not enough, wherever they are.
        #expect(MergePolicy().segmentsToMerge(in: Array(large.prefix(7)) + Array(small.prefix(7))) == nil)
    }

    @Test func deadSegmentsGoFirstAndMostlyDeletedOnesAreRewritten() {
        var sizes = Array(repeating: Sizes(documents: 100, deleted: 0), count: 8)
        sizes[2].deleted = 100
        #expect(MergePolicy().segmentsToMerge(in: sizes) == 2..<3)
        var few = Array(repeating: Sizes(documents: 100, deleted: 0), count: 3)
        few[1].deleted = 60
        #expect(MergePolicy().segmentsToMerge(in: few) == 1..<2)
        few[1].deleted = 40
        #expect(MergePolicy().segmentsToMerge(in: few) == nil)
    }
}
