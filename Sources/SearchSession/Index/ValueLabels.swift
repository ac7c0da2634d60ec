#if canImport(Glibc)
    internal import Glibc
#endif

/// The labels of a facet numbering's string values, or of its categories, by number, without a
/// String per label.
///
/// A numbering gives numbers to its first segment's values (and categories) in that segment's
/// order, so those labels are the segment's own names, read in place (mapped, and resident
/// already: numbering read each of them once). Labels met in later segments (upserts, a few) are
/// copied into one byte arena. archive-100k has 180,000 values: as Strings they held 6.7 MiB of
/// heap (16 bytes each in the array, a storage object for each longer than 15 bytes); jobs-100k's
/// 35,000 category paths held 3.1 MiB as Strings and 1.3 MiB more as a dictionary's keys.
///
/// Reads go through raw buffers, not the segment object: labels are read from several threads
/// at once, and each read of a shared object counts a reference to it (atomically, a line the
/// cores hand back and forth).
struct ValueLabels: @unchecked Sendable {
    /// The segment whose names are numbers `0..<baseCount`, in the order of its list of them
    /// (`valueStrings` or `categoryNames`): held so its mapping stays while the labels do, and
    /// read through the buffers below.
    private var base: Segment?
    private var baseCount = 0
    private var baseNames = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    private var baseNameBytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var baseNameOffsets = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    /// The labels of numbers from `baseCount` on, end to end, and where each ends.
    private var arena: [UInt8] = []
    private var arenaEnds: [UInt32] = []
    /// A bit per number: whether its label has a scalar from U+0300 on (a lead byte from 0xCC),
    /// so that only a String compares it as Strings do. Text below U+0300 (ASCII, Latin-1 and
    /// the Latin extensions, with no combining mark) is in NFC already, and Strings order NFC
    /// text by its scalars: as its UTF-8 bytes order. Labels with accented letters were made
    /// Strings on every comparison (4 % of a Capture on listings under writes); asking the bytes
    /// on every comparison was 5 % of a Capture on archive-100k, whose ties are sifted by label.
    private var needsStrings: [UInt64] = []

    init() {}

    /// `labels`, numbered in order.
    init(_ labels: [String]) {
        reserveCapacity(adding: labels.count)
        for label in labels { append(label) }
    }

    var count: Int { baseCount + arenaEnds.count }

    /// Label `number` as a String.
    subscript(number: Int) -> String { withBytes(of: number) { String(decoding: $0, as: UTF8.self) } }

    /// Lends label `number`'s bytes to `body`.
    func withBytes<R>(of number: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if number < baseCount {
            let name = Int(baseNames[number])
            return body(
                UnsafeBufferPointer(
                    rebasing: baseNameBytes[Int(baseNameOffsets[name])..<Int(baseNameOffsets[name + 1])]))
        }
        let position = number - baseCount
        let start = position == 0 ? 0 : Int(arenaEnds[position - 1])
        return arena.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[start..<Int(arenaEnds[position])]))
        }
    }

    /// Whether label `number` is `label`, as Strings compare (two spellings Unicode calls
    /// equivalent are one label, as a segment's builder numbers them): bytes first, a String
    /// only when they differ and are not both ASCII.
    func label(_ number: Int, equals label: String) -> Bool {
        var label = label
        return label.withUTF8 { wanted in
            withBytes(of: number) { held in
                if held.elementsEqual(wanted) { return true }
                if !Self.needsStrings(held) && !Self.needsStrings(wanted) { return false }
                return String(decoding: held, as: UTF8.self) == String(decoding: wanted, as: UTF8.self)
            }
        }
    }

    /// Whether label `a` comes before label `b` as Strings order: by their bytes when both are
    /// below U+0300 (the same order, with no String made), else as Strings.
    func label(_ a: Int, precedes b: Int) -> Bool {
        let byBytes = !needsStrings(a) && !needsStrings(b)
        return withBytes(of: a) { first in
            withBytes(of: b) { second in
                guard byBytes else {
                    return String(decoding: first, as: UTF8.self) < String(decoding: second, as: UTF8.self)
                }
                let common = min(first.count, second.count)
                let order = common == 0 ? 0 : memcmp(first.baseAddress!, second.baseAddress!, common)
                return order != 0 ? order < 0 : first.count < second.count
            }
        }
    }

    private func needsStrings(_ number: Int) -> Bool {
        needsStrings[number >> 6] & (1 << UInt64(number & 63)) != 0
    }

    /// Whether UTF-8 text has a scalar from U+0300 on: a lead byte from 0xCC (continuation bytes
    /// are below 0xC0, and U+0080–U+02FF lead with 0xC2–0xCB).
    private static func needsStrings(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.contains { $0 >= 0xCC } }

    /// Notes whether label `number`, just added, needs Strings to compare.
    private mutating func noteOrder(of number: Int) {
        if number >> 6 == needsStrings.count { needsStrings.append(0) }
        if withBytes(of: number, Self.needsStrings) { needsStrings[number >> 6] |= 1 << UInt64(number & 63) }
    }

    /// Gives `segment`'s string values the numbers `0..<n`, in its order, their labels read from
    /// it: for the first segment a numbering meets (nothing numbered yet).
    mutating func takeAllValues(of segment: Segment) { takeAll(segment.valueStrings, of: segment) }

    /// Gives `segment`'s categories the numbers `0..<n`, in its order, as ``takeAllValues(of:)``.
    mutating func takeAllCategories(of segment: Segment) { takeAll(segment.categoryNames, of: segment) }

    /// Gives the names `names` of `segment` (name ids) the numbers `0..<n`, read in place.
    private mutating func takeAll(_ names: UnsafeBufferPointer<UInt32>, of segment: Segment) {
        precondition(count == 0, "only the first segment's labels are read in place")
        base = segment
        baseCount = names.count
        baseNames = names
        baseNameBytes = segment.nameBytes
        baseNameOffsets = segment.nameOffsets
        needsStrings.reserveCapacity((baseCount + 63) / 64)
        for number in 0..<baseCount { noteOrder(of: number) }
    }

    /// Appends a label.
    mutating func append(_ label: String) {
        var label = label
        label.withUTF8 { append($0) }
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        arena.append(contentsOf: bytes)
        arenaEnds.append(UInt32(arena.count))
        noteOrder(of: count - 1)
    }

    /// Reserves room for `count` more labels of the arena.
    mutating func reserveCapacity(adding count: Int) { arenaEnds.reserveCapacity(arenaEnds.count + count) }

    /// Whether the labels read some in place from `segment`.
    func reads(from segment: Segment) -> Bool { base === segment }

    /// The same labels, all in the arena: for a numbering whose first segment is merged away
    /// (its mapping then goes with it, not with the numbering).
    func copiedOut() -> ValueLabels {
        guard base != nil else { return self }
        var copy = ValueLabels()
        for number in 0..<count { withBytes(of: number) { copy.append($0) } }
        return copy
    }

    /// The bytes the labels hold in the heap (the arena, its ends and the ASCII bits; those
    /// read in place are the segment's).
    var heapBytes: Int { arena.count + 4 * arenaEnds.count + 8 * needsStrings.count }
}
