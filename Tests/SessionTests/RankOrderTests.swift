import Testing

@testable import SearchSession

/// The ranking's sort by packed keys gives exactly the order of its comparison, ties included.
@Suite struct RankOrderTests {
    /// Candidates with many ties in every field, so each later field has to decide.
    static func candidates(_ count: Int, seed: UInt64) -> [Candidate] {
        var generator = SplitMix64(state: seed)
        let scores: [Float] = [0, -0.0, 0.5, 1, 1, 2.25, -1, 1e-30, 3.4e38, .leastNonzeroMagnitude]
        let documents = (0..<Int32(count)).map { $0 * 7 - Int32(count) }.shuffled(using: &generator)
        return documents.map { document in
            Candidate(
                doc: document, exact: generator.next() % 2 == 0, score: scores[Int(generator.next() % 10)],
                textScore: nil, distance: nil, matchedGroups: 0, coverage: UInt8(generator.next() % 3))
        }
    }

    @Test(arguments: [2, 3, 20, 100, 1_000], [1, 2, 3] as [UInt64])
    func sortedFollowsTheComparison(count: Int, seed: UInt64) {
        let candidates = Self.candidates(count, seed: seed)
        let expected = candidates.sorted(by: Ranker.better).map(\.doc)
        #expect(Ranker.sorted(candidates).map(\.doc) == expected)
    }

    @Test(arguments: [1, 20, 99, 400])
    func theBestOfTwoHalvesAreTheBestOfAll(k: Int) {
        // Ordering a long list in halves on two cores keeps the best k of each and orders those:
        // the same candidates, in the same order, as one pass.
        let candidates = Self.candidates(5_000, seed: 9)
        let whole = Ranker.top(candidates, k, splitFrom: .max)
        #expect(whole.map(\.doc) == Array(candidates.sorted(by: Ranker.better).prefix(k)).map(\.doc))
        #expect(Ranker.top(candidates, k, splitFrom: 0).map(\.doc) == whole.map(\.doc))
    }

    @Test func aLargerScoreGivesASmallerKey() {
        let ascending: [Float] = [
            -3.4e38, -2, -1, -.leastNonzeroMagnitude, 0, .leastNonzeroMagnitude, 1e-30, 1, 2, 3.4e38,
        ]
        let keys = ascending.map(RankKey.descending)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 })
        #expect(RankKey.descending(-0.0) == RankKey.descending(0))
    }
}
