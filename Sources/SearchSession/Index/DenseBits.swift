/// A common term's postings as a bit per document of its segment, with the number of postings
/// before each 64-bit word: whether the list has a document is one bit, and where (its
/// position, for its frequency) a population count. Intersections probe these instead of
/// searching the list when it holds a large share of the segment (the heaviest captures pair
/// two or three labels that each name tens of thousands of documents).
///
/// Made from the list on first use and kept by the segment (``Segment/denseBits(_:)``): a few
/// lists of a segment qualify, 12.5 KB of bits and 6.25 KB of ranks each per 100k documents.
final class DenseBits: @unchecked Sendable {
    /// The least share of the segment's documents a list must hold (and the fewest postings),
    /// below which a search of the list costs less than the probes and the memory.
    static let minimumShare = 16
    static let minimumPostings = 1_024

    private let words: UnsafeMutableBufferPointer<UInt64>
    private let ranks: UnsafeMutableBufferPointer<UInt32>

    /// Whether a list of `postings` postings in a segment of `documents` qualifies.
    static func qualifies(postings: Int, documents: Int) -> Bool {
        postings >= minimumPostings && postings * minimumShare >= documents
    }

    /// The bits of `docs` (ascending, each below `documents`).
    init(_ docs: UnsafeBufferPointer<UInt32>, documents: Int) {
        let wordCount = (documents + 63) / 64
        words = .allocate(capacity: max(wordCount, 1))
        words.initialize(repeating: 0)
        ranks = .allocate(capacity: max(wordCount, 1))
        for doc in docs where Int(doc) < documents { words[Int(doc >> 6)] |= 1 << UInt64(doc & 63) }
        var total: UInt32 = 0
        for word in 0..<wordCount {
            ranks[word] = total
            total &+= UInt32(words[word].nonzeroBitCount)
        }
    }

    deinit {
        words.deallocate()
        ranks.deallocate()
    }

    /// The bits as raw pointers, for loops that must not retain (valid while `self` lives).
    var probe: DenseProbe {
        DenseProbe(words: UnsafePointer(words.baseAddress!), ranks: UnsafePointer(ranks.baseAddress!))
    }
}

/// ``DenseBits`` read without reference counting.
struct DenseProbe {
    let words: UnsafePointer<UInt64>
    let ranks: UnsafePointer<UInt32>

    /// Whether the list has `doc` (a document of the segment), and the position in the list
    /// it has or would have.
    @inline(__always) func find(_ doc: UInt32) -> (has: Bool, position: Int) {
        let index = Int(doc &>> 6)
        let word = words[index]
        let bit: UInt64 = 1 &<< UInt64(doc & 63)
        return (word & bit != 0, Int(ranks[index]) &+ (word & (bit &- 1)).nonzeroBitCount)
    }
}
