/// A common term's facet counts as a snapshot keeps them (see
/// ``CatalogSnapshot/keepTermCounts(_:of:)``): a byte a count, the few counts past a byte
/// beside them.
///
/// Kept as ``FacetCounts``, four bytes a value, a term of archive-100k (180,000 values) took
/// 0.75 MB, so the snapshot's budget held five terms: fewer than a Capture load's common labels,
/// which pushed each other out in turn, and each came back to count its hits again (the slowest
/// hundredth of Captures). Almost all of a term's value counts are below 255 (a value most of
/// the catalog has, a type, a top category are not).
struct CompactFacetCounts: Sendable, Equatable {
    private var types: ByteCounts
    private var categories: ByteCounts
    private var values: ByteCounts
    private var buckets: ByteCounts
    /// Numbers of attributes that also have strings, counted by their text.
    private(set) var textNumbers: [Int32: [String: Int32]]

    init(_ counts: FacetCounts) {
        types = ByteCounts(counts.types)
        categories = ByteCounts(counts.categories)
        values = counts.values.withUnsafeBufferPointer { ByteCounts($0) }
        buckets = ByteCounts(counts.buckets)
        textNumbers = counts.textNumbers
    }

    /// The counts, four bytes each again.
    var counts: FacetCounts {
        FacetCounts(
            types: types.expanded, categories: categories.expanded, values: CountColumn(values.expanded),
            buckets: buckets.expanded, textNumbers: textNumbers)
    }

    /// These counts less `other`'s (counts of a subset of the same documents), as
    /// ``FacetCounts/subtracting(_:)`` makes them, in one pass each.
    func subtracting(_ other: FacetCounts) -> FacetCounts {
        var textNumbers = self.textNumbers
        for (attribute, labels) in other.textNumbers {
            for (label, count) in labels { textNumbers[attribute, default: [:]][label, default: 0] -= count }
        }
        return FacetCounts(
            types: types.subtracting(other.types), categories: categories.subtracting(other.categories),
            values: values.subtracting(other.values), buckets: buckets.subtracting(other.buckets),
            textNumbers: FacetCounts.nonEmpty(textNumbers))
    }

    /// These counts in `numbering`, which extends theirs with layouts kept: the values it adds
    /// count 0.
    func padded(to numbering: FacetNumbering) -> CompactFacetCounts {
        var padded = self
        padded.types.pad(to: numbering.typeNames.count)
        padded.categories.pad(to: numbering.categoryNames.count)
        padded.values.pad(to: numbering.valueLabels.count)
        padded.buckets.pad(to: Int(numbering.bucketStart.last ?? 0))
        return padded
    }

    /// These counts changed by `changes` (counters of the same numbering): in place, where
    /// making them anew from a tally would write and read four bytes a value for each term on
    /// every write.
    func applying(_ changes: [(counter: FacetCounter, change: Int32)]) -> CompactFacetCounts {
        var changed = self
        var textNumbers = self.textNumbers
        for (counter, change) in changes where change != 0 {
            switch counter {
            case .type(let slot): changed.types.add(change, at: slot)
            case .category(let slot): changed.categories.add(change, at: slot)
            case .value(let slot): changed.values.add(change, at: slot)
            case .bucket(let slot): changed.buckets.add(change, at: slot)
            case .textNumber(let attribute, let label):
                textNumbers[attribute, default: [:]][label, default: 0] += change
            }
        }
        changed.textNumbers = FacetCounts.nonEmpty(textNumbers)
        return changed
    }

    /// About how many bytes the counts hold.
    var bytes: Int {
        types.bytes + categories.bytes + values.bytes + buckets.bytes
            + textNumbers.values.reduce(0) { $0 + 32 * $1.count }
    }
}

/// Counts a byte each, those a byte cannot hold (255 or more, or below 0) in a list beside.
struct ByteCounts: Sendable, Equatable {
    /// Per slot: its count, or ``escape`` when the count is in the list.
    private var small: [UInt8]
    /// The slots whose counts a byte cannot hold, ascending, and their counts.
    private var largeSlots: [Int32] = []
    private var largeCounts: [Int32] = []

    /// Marks a slot whose count is in the list.
    private static let escape: UInt8 = 255

    init(_ counts: [Int32]) {
        self = counts.withUnsafeBufferPointer { ByteCounts($0) }
    }

    init(_ counts: UnsafeBufferPointer<Int32>) {
        var largeSlots = [Int32]()
        var largeCounts = [Int32]()
        small = [UInt8](unsafeUninitializedCapacity: counts.count) { small, initialized in
            for slot in counts.indices {
                let count = counts[slot]
                // One unsigned comparison for both ends: a negative count is a large unsigned one.
                if UInt32(bitPattern: count) < UInt32(Self.escape) {
                    small[slot] = UInt8(truncatingIfNeeded: count)
                } else {
                    small[slot] = Self.escape
                    largeSlots.append(Int32(slot))
                    largeCounts.append(count)
                }
            }
            initialized = counts.count
        }
        self.largeSlots = largeSlots
        self.largeCounts = largeCounts
    }

    var bytes: Int { small.count + 8 * largeSlots.count }

    /// Adds `change` to the count of `slot`, moving it into or out of the list as it leaves or
    /// enters a byte's range; the list stays ascending.
    mutating func add(_ change: Int32, at slot: Int) {
        if small[slot] != Self.escape {
            let count = Int32(small[slot]) &+ change
            if UInt32(bitPattern: count) < UInt32(Self.escape) {
                small[slot] = UInt8(truncatingIfNeeded: count)
            } else {
                small[slot] = Self.escape
                let position = largeSlots.partitionPoint { $0 >= Int32(slot) }
                largeSlots.insert(Int32(slot), at: position)
                largeCounts.insert(count, at: position)
            }
            return
        }
        let position = largeSlots.partitionPoint { $0 >= Int32(slot) }
        let count = largeCounts[position] &+ change
        if UInt32(bitPattern: count) < UInt32(Self.escape) {
            small[slot] = UInt8(truncatingIfNeeded: count)
            largeSlots.remove(at: position)
            largeCounts.remove(at: position)
        } else {
            largeCounts[position] = count
        }
    }

    /// Adds slots counting 0 up to `count`.
    mutating func pad(to count: Int) {
        if small.count < count { small += repeatElement(0, count: count - small.count) }
    }

    /// The counts, four bytes each.
    var expanded: [Int32] {
        var out = small.map { Int32($0) }
        for (slot, count) in zip(largeSlots, largeCounts) { out[Int(slot)] = count }
        return out
    }

    /// These counts less `other`'s, as many as the shorter has.
    func subtracting(_ other: [Int32]) -> [Int32] {
        let count = min(small.count, other.count)
        return [Int32](unsafeUninitializedCapacity: count) { out, initialized in
            other.withUnsafeBufferPointer { other in subtract(other, into: out) }
            initialized = count
        }
    }

    /// These counts less `other`'s, as many as the shorter has.
    func subtracting(_ other: CountColumn) -> CountColumn {
        CountColumn(count: min(small.count, other.count)) { out in
            other.withUnsafeBufferPointer { other in subtract(other, into: out) }
        }
    }

    /// Writes these counts less `other`'s into `out`'s first `min(small.count, other.count)`.
    private func subtract(_ other: UnsafeBufferPointer<Int32>, into out: UnsafeMutableBufferPointer<Int32>) {
        let count = min(small.count, other.count)
        small.withUnsafeBufferPointer { small in
            for slot in 0..<count { out[slot] = Int32(small[slot]) &- other[slot] }
        }
        for (slot, large) in zip(largeSlots, largeCounts) where Int(slot) < count {
            out[Int(slot)] = large &- other[Int(slot)]
        }
    }
}
