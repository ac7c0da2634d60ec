/// One counter of a snapshot's facet counts (``FacetCounts``): what a document adds one to.
enum FacetCounter: Hashable {
    case type(Int)
    case category(Int)
    case value(Int)
    case bucket(Int)
    /// A number of an attribute that also has strings, counted by its text.
    case textNumber(attribute: Int32, label: String)
}

/// Counters that documents counted out and in change, netted: a replaced document counted out
/// and its new version counted in mostly cancel (an upsert that changes a title changes no
/// counter), so a write copies no counts then.
///
/// Each change is one count up or down, kept as a number that sorts by counter (its kind, its
/// slot, then the sign) and netted after one sort: a dictionary keyed by counter hashed each of
/// them, 14 % of an upsert of 100 into archive-100k (thousands of changes a write: the counts of
/// every live document and each kept term's). The sort is a radix sort (``radixSorted(_:)``):
/// the standard library's comparison sort was 14 % of an upsert of 100 into jobs-100k.
struct FacetCounterChanges {
    private var ups: [UInt64] = []
    /// Numbers counted by their text (attributes with strings too): few, kept by counter.
    private var byText: [FacetCounter: Int32] = [:]

    /// Notes one count of `counter`, up (`up`) or down.
    mutating func note(_ counter: FacetCounter, up: Bool) {
        let kind: UInt64
        let slot: Int
        switch counter {
        case .type(let s): (kind, slot) = (0, s)
        case .category(let s): (kind, slot) = (1, s)
        case .value(let s): (kind, slot) = (2, s)
        case .bucket(let s): (kind, slot) = (3, s)
        case .textNumber:
            byText[counter, default: 0] += up ? 1 : -1
            return
        }
        ups.append(kind << 62 | UInt64(slot) << 1 | (up ? 1 : 0))
    }

    /// Each changed counter once, with its net change; counters that cancel out are left out.
    func netted() -> [(counter: FacetCounter, change: Int32)] {
        var out = [(counter: FacetCounter, change: Int32)]()
        let sorted = Self.radixSorted(ups)
        var index = 0
        while index < sorted.count {
            let counter = sorted[index] >> 1
            var change: Int32 = 0
            while index < sorted.count && sorted[index] >> 1 == counter {
                change += sorted[index] & 1 == 1 ? 1 : -1
                index += 1
            }
            guard change != 0 else { continue }
            let slot = Int(counter & (1 << 61 - 1))
            switch counter >> 61 {
            case 0: out.append((.type(slot), change))
            case 1: out.append((.category(slot), change))
            case 2: out.append((.value(slot), change))
            default: out.append((.bucket(slot), change))
            }
        }
        for (counter, change) in byText where change != 0 { out.append((counter, change)) }
        return out
    }

    /// `keys` in ascending order: a stable counting sort by each byte from the lowest, leaving
    /// out the bytes every key shares (a change's key uses its low three bytes and its top one).
    static func radixSorted(_ keys: [UInt64]) -> [UInt64] {
        // Below a few hundred keys, eight histograms cost more than the comparisons.
        guard keys.count > 256 else { return keys.sorted() }
        var histograms = [Int](repeating: 0, count: 8 * 256)
        for key in keys {
            for byte in 0..<8 { histograms[byte << 8 | Int(truncatingIfNeeded: key >> (byte * 8)) & 0xFF] += 1 }
        }
        var source = keys
        var target = [UInt64](repeating: 0, count: keys.count)
        for byte in 0..<8 {
            let histogram = histograms[(byte << 8)..<(byte << 8 + 256)]
            if histogram.contains(keys.count) { continue }
            var next = [Int](repeating: 0, count: 256)
            var total = 0
            for (digit, count) in histogram.enumerated() {
                next[digit] = total
                total += count
            }
            source.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { target in
                    for key in source {
                        let digit = Int(truncatingIfNeeded: key >> (byte * 8)) & 0xFF
                        target[next[digit]] = key
                        next[digit] += 1
                    }
                }
            }
            swap(&source, &target)
        }
        return source
    }
}

extension FacetNumbering {
    /// Calls `body` with each counter document `doc` of `segment` (mapped by `numbers`) adds one
    /// to, as ``FacetTally/add(_:of:_:sign:)`` counts it: its type, its category and each
    /// ancestor, each attribute value (a number in its bucket, or by its text).
    func forEachCounter(
        of doc: Int, in segment: Segment, _ numbers: SegmentNumbers, _ body: (FacetCounter) -> Void
    ) {
        body(.type(Int(numbers.types[Int(segment.docType[doc])])))
        var category = segment.docCategory[doc]
        while category != .max {
            body(.category(Int(numbers.categories[Int(category)])))
            category = segment.categoryParent[Int(category)]
        }
        for pair in segment.attributes(of: doc) {
            let value = segment.pairValue[pair]
            guard segment.isNumber(value) else {
                body(.value(Int(numbers.values[Int(value)])))
                continue
            }
            let attribute = Int(numbers.attributes[Int(segment.attribute(ofValue: value))])
            let number = segment.number(value)
            if let layout = buckets[attribute] {
                body(.bucket(Int(bucketStart[attribute]) + layout.index(of: number)))
            } else {
                body(.textNumber(attribute: Int32(attribute), label: formatNumber(number)))
            }
        }
    }
}
