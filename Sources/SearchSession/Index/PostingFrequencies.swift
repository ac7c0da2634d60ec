/// A term's saturated frequencies (``TextIndex/saturate(_:)``) as a segment stores them: an 8-bit
/// code per posting into the segment's table of at most 256 values.
///
/// Postings are most of what a search keeps resident (on a 100k-entity catalog of long listings,
/// 32 of the 51 MiB of its segment that Captures touch), and the frequency is a quarter of each
/// posting's bytes at this width (half of them at 16 bits). A segment with at most 256 distinct
/// values (every test catalog, and small segments that writes add) gets each posting's exact
/// Float32 back; a larger one rounds its values to fewer mantissa bits until 256 hold them
/// (``FrequencyTable/init(_:)``), order kept: the bench catalogs' values lie within 2 to 3.3
/// octaves (0.2 to 2.2), so 6 or 7 mantissa bits stay and each value is within 1/128 of its own.
/// Lucene keeps its length norms in one byte for the same reason; the check is the sheet's
/// nDCG@10 against `bench/search-peers.py`'s judgements (bench/search/README.md, twenty-first
/// pass).
struct PostingFrequencies {
    let codes: UnsafeBufferPointer<UInt8>
    /// The segment's values, a power of two of them: a code is masked into range, so even a code
    /// that is not in the table reads a value of the table, never past it.
    let values: UnsafeBufferPointer<Float>

    static var empty: PostingFrequencies {
        PostingFrequencies(
            codes: UnsafeBufferPointer(start: nil, count: 0), values: UnsafeBufferPointer(start: nil, count: 0))
    }

    var count: Int { codes.count }

    @inline(__always) subscript(position: Int) -> Float {
        values[Int(codes[position]) & (values.count &- 1)]
    }
}

/// The codes and the table of values a segment stores for its postings' frequencies.
struct FrequencyTable {
    static let capacity = 1 << 8

    /// Ascending distinct values, padded with the last to a power of two (at least one).
    let values: [Float]
    let codes: [UInt8]

    init(_ frequencies: [Float]) {
        // Rounded as distinct values, not per posting: a large segment has tens of millions of
        // postings and only tens of thousands of values. They are found by their bit patterns
        // (``Patterns``), not in a Set<Float> and a [Float: UInt8]: the standard library's
        // hasher, twice a posting, was a twentieth of building an upsert's segment.
        var patterns = Patterns()
        for value in frequencies { patterns.insert(value.bitPattern) }
        let original = patterns.distinct.map { Float(bitPattern: $0) }.sorted()
        var rounded = original
        var dropped: UInt32 = 0
        while Self.distinctCount(ofAscending: rounded) > Self.capacity {
            dropped += 1
            rounded = original.map { Self.rounding($0, droppingMantissaBits: dropped) }
        }
        // Rounding keeps the order, so equal rounded values are neighbours.
        var distinct = [Float]()
        for (value, roundedValue) in zip(original, rounded) {
            if distinct.last != roundedValue { distinct.append(roundedValue) }
            patterns.setCode(UInt8(distinct.count - 1), of: value.bitPattern)
        }
        codes = frequencies.map { patterns.code(of: $0.bitPattern) }
        var size = 1
        while size < distinct.count { size <<= 1 }
        values = distinct + Array(repeating: distinct.last ?? 0, count: size - distinct.count)
    }

    /// Distinct Float bit patterns with a code each, in an open-addressed table (linear probing,
    /// at most half full).
    private struct Patterns {
        /// Per slot: a pattern, or `empty`.
        private var slots = [UInt32](repeating: Patterns.empty, count: 1024)
        private var slotCodes = [UInt8](repeating: 0, count: 1024)
        /// The patterns in the order they came.
        private(set) var distinct: [UInt32] = []
        /// A NaN's pattern: a frequency is finite.
        private static let empty = UInt32.max

        /// The slot `pattern` has, or the empty one where it would go.
        private func slot(of pattern: UInt32) -> Int {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: (UInt64(pattern) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
            while slots[slot] != pattern && slots[slot] != Self.empty { slot = (slot + 1) & mask }
            return slot
        }

        mutating func insert(_ pattern: UInt32) {
            let place = slot(of: pattern)
            guard slots[place] == Self.empty else { return }
            slots[place] = pattern
            distinct.append(pattern)
            if 2 * distinct.count > slots.count {
                slots = [UInt32](repeating: Self.empty, count: 2 * slots.count)
                slotCodes = [UInt8](repeating: 0, count: slots.count)
                for known in distinct { slots[slot(of: known)] = known }
            }
        }

        /// Sets the code of an inserted pattern.
        mutating func setCode(_ code: UInt8, of pattern: UInt32) { slotCodes[slot(of: pattern)] = code }

        /// The code of an inserted pattern.
        func code(of pattern: UInt32) -> UInt8 { slotCodes[slot(of: pattern)] }
    }

    private static func distinctCount(ofAscending values: [Float]) -> Int {
        zip(values, values.dropFirst()).count { $0 != $1 } + (values.isEmpty ? 0 : 1)
    }

    /// `value` rounded to the nearest Float32 with its lowest `bits` mantissa bits zero (ties
    /// away from zero). The frequencies are positive and finite.
    static func rounding(_ value: Float, droppingMantissaBits bits: UInt32) -> Float {
        let half: UInt32 = 1 << (bits - 1)
        let pattern = (value.bitPattern &+ half) & ~((1 << bits) - 1)
        return Float(bitPattern: pattern)
    }
}
