import Testing

@testable import SearchSession

/// Common terms' postings as bits: a probe answers what a search of the list answers.
@Suite struct DenseBitsTests {
    @Test(
        "a probe finds whether the list has a document and its position, for every document",
        arguments: [
            (documents: 1, share: 1), (documents: 64, share: 2), (documents: 65, share: 3),
            (documents: 5_000, share: 4),
            (documents: 5_000, share: 100),
        ])
    func aProbeAnswersWhatASearchOfTheListAnswers(documents: Int, share: Int) {
        var generator = SplitMix64(state: UInt64(documents * 31 + share))
        var docs = (0..<documents).filter { _ in Int.random(in: 0..<share, using: &generator) == 0 }.map(UInt32.init)
        // Both ends of the segment and of a word, whatever the draw.
        docs = Array(Set(docs + [0, UInt32(documents - 1)] + (documents > 64 ? [63, 64] : []))).sorted()
        let bits = docs.withUnsafeBufferPointer { DenseBits($0, documents: documents) }
        let probe = bits.probe
        withExtendedLifetime(bits) {
            for doc in 0..<UInt32(documents) {
                let position = docs.firstIndex { $0 >= doc } ?? docs.count
                let found = probe.find(doc)
                #expect(found.has == (position < docs.count && docs[position] == doc), "\(doc)")
                #expect(found.position == position, "\(doc)")
            }
        }
    }

    @Test func onlyListsHoldingASixteenthOfTheSegmentAndAThousandPostingsQualify() {
        #expect(DenseBits.qualifies(postings: 6_250, documents: 100_000))
        #expect(!DenseBits.qualifies(postings: 6_249, documents: 100_000))
        #expect(!DenseBits.qualifies(postings: 1_023, documents: 2_000))
        #expect(DenseBits.qualifies(postings: 1_024, documents: 2_000))
    }
}
