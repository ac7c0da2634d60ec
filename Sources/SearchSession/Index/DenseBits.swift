/// A common term's postings as a bit per document of its segment, with the number of postings
/// before each 64-bit word: whether the list has a document is one bit, and where (its
/// position, for its frequency) a population count. Intersections probe these instead of
/// searching the list (the heaviest captures pair two or three labels that each name tens of
/// thousands of documents), and intersect several a word at a time.
///
/// A segment stores a term's or exact phrase's list that qualifies this way only: at a
/// sixteenth of the segment or more, the bits and ranks (0.19 bytes a document of the segment)
/// take less than 32-bit numbers (4 bytes a posting) and are read faster than packed gaps, and
/// about half of a catalog's postings are in such lists (sparse: 1.6 of its 3.0 million).
/// Roaring keeps its dense containers the same way.
enum DenseBits {
    /// The least share of the segment's documents a list must hold (and the fewest postings),
    /// below which a search of the list costs less than the probes and the memory.
    static let minimumShare = 16
    static let minimumPostings = 1_024

    /// Whether a list of `postings` postings in a segment of `documents` qualifies.
    static func qualifies(postings: Int, documents: Int) -> Bool {
        postings >= minimumPostings && postings * minimumShare >= documents
    }

    /// `word`, the list's word at `index`, with its documents outside `documents` cleared.
    @inline(__always) static func masked(_ word: UInt64, at index: Int, within documents: Range<Int>) -> UInt64 {
        var word = word
        if index == documents.lowerBound >> 6 { word &= ~UInt64(0) &<< UInt64(documents.lowerBound & 63) }
        if index == (documents.upperBound - 1) >> 6 && documents.upperBound & 63 != 0 {
            word &= (1 &<< UInt64(documents.upperBound & 63)) &- 1
        }
        return word
    }

    /// The 64-bit words a list's bits take in a segment of `documents`.
    static func wordCount(documents: Int) -> Int { (documents + 63) / 64 }

    /// Appends the bits of `docs` (ascending, each below `documents`) and their ranks.
    static func append(
        _ docs: some Sequence<UInt32>, documents: Int, words: inout [UInt64], ranks: inout [UInt32]
    ) {
        let first = words.count
        let wordCount = wordCount(documents: documents)
        words.append(contentsOf: repeatElement(0, count: wordCount))
        for doc in docs where Int(doc) < documents { words[first + Int(doc >> 6)] |= 1 << UInt64(doc & 63) }
        var total: UInt32 = 0
        for word in first..<(first + wordCount) {
            ranks.append(total)
            total &+= UInt32(words[word].nonzeroBitCount)
        }
    }
}

/// One list's ``DenseBits`` read in place, without reference counting (valid while its segment
/// lives).
struct DenseProbe {
    let words: UnsafePointer<UInt64>
    let ranks: UnsafePointer<UInt32>
    let wordCount: Int

    /// Whether the list has `doc` (a document of the segment), and the position in the list
    /// it has or would have.
    @inline(__always) func find(_ doc: UInt32) -> (has: Bool, position: Int) {
        let index = Int(doc &>> 6)
        let word = words[index]
        let bit: UInt64 = 1 &<< UInt64(doc & 63)
        return (word & bit != 0, Int(ranks[index]) &+ (word & (bit &- 1)).nonzeroBitCount)
    }

    /// How many documents the list has.
    var count: Int {
        wordCount == 0 ? 0 : Int(ranks[wordCount - 1]) + words[wordCount - 1].nonzeroBitCount
    }

    /// The position in the list of its first document at or past `doc` (its count past the end).
    func position(atLeast doc: Int) -> Int {
        if doc <= 0 { return 0 }
        if doc >= wordCount * 64 { return count }
        return find(UInt32(doc)).position
    }

    /// The word of the list at `index`, its documents outside `documents` cleared.
    @inline(__always) private func word(_ index: Int, within documents: Range<Int>) -> UInt64 {
        DenseBits.masked(words[index], at: index, within: documents)
    }

    /// The list's first document among `documents` (within the segment), if it has one.
    func firstDocument(in documents: Range<Int>) -> Int? {
        guard !documents.isEmpty else { return nil }
        for index in (documents.lowerBound >> 6)...((documents.upperBound - 1) >> 6) {
            let word = word(index, within: documents)
            if word != 0 { return index << 6 | word.trailingZeroBitCount }
        }
        return nil
    }

    /// The list's last document among `documents` (within the segment), if it has one.
    func lastDocument(in documents: Range<Int>) -> Int? {
        guard !documents.isEmpty else { return nil }
        for index in ((documents.lowerBound >> 6)...((documents.upperBound - 1) >> 6)).reversed() {
            let word = word(index, within: documents)
            if word != 0 { return index << 6 | (63 - word.leadingZeroBitCount) }
        }
        return nil
    }

    /// Calls `body` with each document of the list among `documents` (within the segment),
    /// ascending.
    @inline(__always) func forEach(in documents: Range<Int>, _ body: (_ doc: Int) -> Void) {
        guard !documents.isEmpty else { return }
        for index in (documents.lowerBound >> 6)...((documents.upperBound - 1) >> 6) {
            var word = word(index, within: documents)
            while word != 0 {
                body(index << 6 | word.trailingZeroBitCount)
                word &= word &- 1
            }
        }
    }

    /// Calls `body` with each document of the list, ascending, and its position.
    @inline(__always) func forEach(_ body: (_ doc: UInt32, _ position: Int) -> Void) {
        var position = 0
        for index in 0..<wordCount {
            var word = words[index]
            while word != 0 {
                body(UInt32(index &<< 6 | word.trailingZeroBitCount), position)
                position &+= 1
                word &= word &- 1
            }
        }
    }
}
