/// The deleted documents of one segment in one snapshot: a bit per document, in chunks.
///
/// Snapshots share chunks: a write copies only the chunks it changes (2 KiB for 16,384
/// documents), so the many snapshots kept for page tokens cost little even over a 1M-document
/// segment.
struct DeleteSet: Sendable {
    /// Bits of `documentsPerChunk` documents; shared between delete sets until one changes it.
    final class Chunk: @unchecked Sendable {
        // Mutated only through a `DeleteSet` that holds the sole reference, before it is shared.
        var words: [UInt64]
        init(words: [UInt64]) { self.words = words }
    }

    static let wordsPerChunk = 256
    static let documentsPerChunk = wordsPerChunk * 64

    /// `nil` for a chunk without deleted documents.
    private var chunks: [Chunk?]
    /// How many documents are deleted.
    private(set) var count = 0

    /// No document of a segment of `documents` deleted.
    init(documents: Int) {
        chunks = [Chunk?](repeating: nil, count: (documents + Self.documentsPerChunk - 1) / Self.documentsPerChunk)
    }

    @inline(__always) func contains(_ doc: Int) -> Bool {
        guard let chunk = chunks[doc / Self.documentsPerChunk] else { return false }
        let bit = doc % Self.documentsPerChunk
        return chunk.words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// `body` with the bits of chunk `index` (documents `index × documentsPerChunk` on, a bit
    /// each), or with `nil` when none of them is deleted.
    func withChunkWords<Result>(_ index: Int, _ body: (UnsafePointer<UInt64>?) -> Result) -> Result {
        guard let chunk = chunks[index] else { return body(nil) }
        return chunk.words.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// Marks a document deleted; returns whether it was live.
    @discardableResult
    mutating func insert(_ doc: Int) -> Bool {
        if contains(doc) { return false }
        let chunkIndex = doc / Self.documentsPerChunk
        let bit = doc % Self.documentsPerChunk
        if chunks[chunkIndex] == nil {
            chunks[chunkIndex] = Chunk(words: [UInt64](repeating: 0, count: Self.wordsPerChunk))
        } else if !isKnownUniquelyReferenced(&chunks[chunkIndex]!) {
            chunks[chunkIndex] = Chunk(words: chunks[chunkIndex]!.words)
        }
        chunks[chunkIndex]!.words[bit >> 6] |= 1 << UInt64(bit & 63)
        count += 1
        return true
    }

    /// The deleted documents, ascending.
    var docs: [Int] {
        var out = [Int]()
        out.reserveCapacity(count)
        for (chunkIndex, chunk) in chunks.enumerated() {
            guard let chunk else { continue }
            for (wordIndex, word) in chunk.words.enumerated() where word != 0 {
                var bits = word
                while bits != 0 {
                    out.append(chunkIndex * Self.documentsPerChunk + wordIndex << 6 | bits.trailingZeroBitCount)
                    bits &= bits - 1
                }
            }
        }
        return out
    }
}
