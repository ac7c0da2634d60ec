/// A set of snapshot document numbers within a range, one bit each: a lookup per match that
/// costs the same whatever the set holds (a walk beside a sorted list mispredicts when the
/// two interleave, as the exact hits of a common label and its matches do).
final class DocumentBits {
    private let words: UnsafeMutableBufferPointer<UInt64>
    /// The numbers the set can hold: others are never members.
    private let low: Int32
    private let high: Int32

    /// An empty set for the numbers of `range` that a snapshot of `documentCount` documents has.
    init(_ range: Range<Int32>, documentCount: Int) {
        low = max(range.lowerBound, 0)
        high = Int32(clamping: min(Int64(range.upperBound), Int64(documentCount)))
        words = filledBuffer(high > low ? (Int(high - low) + 63) / 64 : 0, UInt64(0))
    }

    deinit { words.baseAddress?.deallocate() }

    /// Adds a segment's documents (its own numbers, `base` the first one's snapshot number), those
    /// within the set's range.
    func insert(_ locals: ArraySlice<UInt32>, base: Int32) {
        let low = Int64(self.low)
        let high = Int64(self.high)
        for local in locals {
            let doc = Int64(base) + Int64(local)
            guard doc >= low && doc < high else { continue }
            let offset = Int(doc - low)
            words[offset >> 6] |= 1 << UInt64(offset & 63)
        }
    }

    /// Adds the documents of a segment's list of bits among its documents `locals`, those within
    /// the set's range: a word of the list at a time, shifted to where its documents sit here.
    func insert(_ probe: DenseProbe, _ locals: Range<Int>, base: Int32) {
        // Where a local document sits in the set, and the locals the set can hold.
        let shift = Int(base) - Int(low)
        let from = max(locals.lowerBound, -shift)
        let to = min(locals.upperBound, Int(high) - Int(base))
        guard from < to else { return }
        for index in (from >> 6)...((to - 1) >> 6) {
            let word = DenseBits.masked(probe.words[index], at: index, within: from..<to)
            guard word != 0 else { continue }
            // The set's bit for the word's first document: below 0 for a word that starts before
            // the set (its documents before the set are masked off, the rest land in word 0).
            let offset = index << 6 + shift
            let target = offset >> 6
            let bit = offset & 63
            if target >= 0 && target < words.count { words[target] |= word &<< UInt64(bit) }
            if bit != 0 && target + 1 < words.count { words[target + 1] |= word &>> UInt64(64 - bit) }
        }
    }

    /// The set for a loop that looks up every match: a plain value, so no lookup touches a
    /// reference count. Valid while the set lives.
    var lookup: Lookup { Lookup(words: UnsafeBufferPointer(words), low: low, high: high) }

    struct Lookup {
        let words: UnsafeBufferPointer<UInt64>
        let low: Int32
        let high: Int32

        /// The lookup of an empty set.
        static var empty: Lookup { Lookup(words: UnsafeBufferPointer(start: nil, count: 0), low: 0, high: 0) }

        @inline(__always) func contains(_ doc: Int32) -> Bool {
            guard doc >= low && doc < high else { return false }
            let offset = Int(doc - low)
            return words[offset >> 6] & (1 << UInt64(offset & 63)) != 0
        }
    }
}
