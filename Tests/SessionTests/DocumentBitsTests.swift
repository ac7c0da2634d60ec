import Testing

@testable import SearchSession

/// A set of snapshot documents filled from a segment's list of bits a word at a time holds what
/// adding the list's documents one by one would.
@Suite struct DocumentBitsTests {
    @Test(
        "a list of bits inserted at any alignment holds its documents in range",
        arguments: [
            (base: 0, set: 0..<1_000, locals: 0..<700), (base: 0, set: 5..<990, locals: 3..<700),
            (base: 37, set: 40..<1_000, locals: 0..<700), (base: 64, set: 100..<163, locals: 0..<700),
            (base: 300, set: 0..<1_200, locals: 63..<65), (base: 1, set: 0..<2, locals: 0..<700),
        ])
    func aListOfBitsInsertedAtAnyAlignmentHoldsItsDocumentsInRange(base: Int, set: Range<Int>, locals: Range<Int>) {
        var generator = SplitMix64(state: UInt64(base * 7 + set.lowerBound))
        let documents = 700
        let docs = (0..<UInt32(documents)).filter { _ in Bool.random(using: &generator) }
        var words = [UInt64]()
        var ranks = [UInt32]()
        DenseBits.append(docs, documents: documents, words: &words, ranks: &ranks)
        let bits = DocumentBits(Int32(set.lowerBound)..<Int32(set.upperBound), documentCount: 2_000)
        words.withUnsafeBufferPointer { words in
            ranks.withUnsafeBufferPointer { ranks in
                let probe = DenseProbe(
                    words: words.baseAddress!, ranks: ranks.baseAddress!,
                    wordCount: DenseBits.wordCount(documents: documents))
                bits.insert(probe, locals, base: Int32(base))
            }
        }
        let lookup = bits.lookup
        let expected = Set(docs.map(Int.init).filter(locals.contains).map { $0 + base }.filter(set.contains))
        for doc in -5..<1_300 {
            #expect(lookup.contains(Int32(doc)) == expected.contains(doc), "\(doc)")
        }
    }
}
