internal import CVectorKernels
internal import Synchronization

/// One segment's attribute pairs numbered for counting facets: a slot per string value and per
/// bucket of a numeric attribute, so counting many documents increments a few thousand counters
/// instead of one per distinct value.
///
/// A segment's value ids give every distinct number an id of its own (sparse-100k: 298,330 ids,
/// 1.2 MB of counters, where a tally's random increments miss the cache); facets only count numbers
/// per bucket of the snapshot's layout. Here a number's pair holds its bucket's slot instead, in
/// 16 bits where the slots allow (sparse-100k: about 4,000 slots, 16 KB of counters), read in
/// document order from a column of its own rather than the segment's `pairValue`.
///
/// Past 65,536 slots (archive-100k: 180,000 string values) a copy of the pairs would take 32 bits
/// each where the segment's own column packs them in 18 to 20 (6.4 MiB of heap beside 3.6 MiB
/// mapped), and a string value's slot is its id anyway: the count then reads the segment's pairs
/// in place and maps only numbers' ids to their slots.
///
/// Slots are local to the segment: `0..<stringCount` are its string value ids; then each numeric
/// attribute's buckets under the layouts the slots were made for; then one slot per number of an
/// attribute that counts numbers by their text (an attribute with strings too). They stay valid
/// while the layouts of the segment's attributes do (``matches(_:_:)``), whatever numbers the
/// snapshot gives the segment's values.
final class FacetSlots: @unchecked Sendable {
    // Written once in init, read-only after.
    /// Per pair: its slot, when ``slotCount`` fits 16 bits (else empty).
    private let narrow: UnsafeMutableBufferPointer<UInt16>
    /// Per number id (its id less ``stringCount``): its slot less ``stringCount``, when the slots
    /// need more than 16 bits (else empty).
    private let numberSlots: UnsafeMutableBufferPointer<UInt32>
    let isNarrow: Bool
    let stringCount: Int
    let slotCount: Int
    /// Per local attribute: the layout its numbers were put in buckets by, `nil` for none.
    private let layouts: [NumberBuckets?]
    /// Per bucket slot (from `stringCount`): its local attribute and bucket.
    private let bucketAttribute: [UInt32]
    private let bucketIndex: [Int32]
    /// Per slot after the buckets: the number's value id.
    private let textNumberIDs: [UInt32]

    /// Slots for `segment` under the layouts of `numbering` (whose `numbers` map the segment).
    init(_ segment: Segment, numbers: SegmentNumbers, numbering: FacetNumbering) {
        let strings = segment.valueStrings.count
        var layouts = [NumberBuckets?](repeating: nil, count: segment.attributeNames.count)
        var bucketBase = [Int](repeating: 0, count: layouts.count)
        var bucketAttribute = [UInt32]()
        var bucketIndex = [Int32]()
        for attribute in layouts.indices {
            guard let layout = numbering.buckets[Int(numbers.attributes[attribute])] else { continue }
            layouts[attribute] = layout
            bucketBase[attribute] = strings + bucketAttribute.count
            bucketAttribute += repeatElement(UInt32(attribute), count: layout.count)
            bucketIndex += (0..<Int32(layout.count))
        }
        let numbersStart = strings + bucketAttribute.count
        var textNumberIDs = [UInt32]()
        let slotOfValue = [UInt32](unsafeUninitializedCapacity: segment.valueCount) { buffer, count in
            for id in 0..<strings { buffer[id] = UInt32(id) }
            for id in strings..<segment.valueCount {
                let attribute = Int(segment.numberAttribute[id - strings])
                if let layout = layouts[attribute] {
                    buffer[id] = UInt32(bucketBase[attribute] + layout.index(of: segment.number(UInt32(id))))
                } else {
                    buffer[id] = UInt32(numbersStart + textNumberIDs.count)
                    textNumberIDs.append(UInt32(id))
                }
            }
            count = segment.valueCount
        }
        let pairs = segment.pairValue
        let slotCount = numbersStart + textNumberIDs.count
        let isNarrow = slotCount <= Int(UInt16.max) + 1
        let narrow = filledBuffer(isNarrow ? pairs.count : 0, UInt16(0))
        let numberSlots = filledBuffer(isNarrow ? 0 : segment.valueCount - strings, UInt32(0))
        slotOfValue.withUnsafeBufferPointer { slotOfValue in
            if isNarrow {
                for pair in pairs.indices { narrow[pair] = UInt16(truncatingIfNeeded: slotOfValue[Int(pairs[pair])]) }
            } else {
                for id in numberSlots.indices { numberSlots[id] = slotOfValue[strings + id] - UInt32(strings) }
            }
        }
        self.slotCount = slotCount
        self.isNarrow = isNarrow
        self.narrow = narrow
        self.numberSlots = numberSlots
        stringCount = strings
        self.layouts = layouts
        self.bucketAttribute = bucketAttribute
        self.bucketIndex = bucketIndex
        self.textNumberIDs = textNumberIDs
    }

    deinit {
        narrow.baseAddress?.deallocate()
        numberSlots.baseAddress?.deallocate()
    }

    /// Whether these slots count `segment`'s numbers in the buckets `numbering` lays out.
    func matches(_ numbers: SegmentNumbers, _ numbering: FacetNumbering) -> Bool {
        layouts.indices.allSatisfy { layouts[$0] == numbering.buckets[Int(numbers.attributes[$0])] }
    }

    /// Adds one to `counts[slot]` for each attribute pair of `docs` (snapshot numbers of
    /// `segment`, whose first is `base`, the segment these slots were made for), in C: it
    /// prefetches the pairs of documents ahead.
    func count(
        _ docs: ArraySlice<Int32>, base: Int32, of segment: Segment, into counts: UnsafeMutableBufferPointer<Int32>
    ) {
        docs.withUnsafeBufferPointer { docs in
            if isNarrow {
                cvk_count_slots16(
                    docs.baseAddress, docs.count, base, segment.docAttributeStart.baseAddress, narrow.baseAddress,
                    counts.baseAddress)
            } else {
                countPacked(docs, base: base, of: segment, strings: counts, numbers: counts.baseAddress! + stringCount)
            }
        }
    }

    /// Whether ``countStrings(_:base:of:into:numbers:)`` can count: the slots need more than 16
    /// bits, so the count reads the segment's own pairs.
    var countsStringsInPlace: Bool { !isNarrow }

    /// Adds one for each attribute pair of `docs` (as ``count(_:base:of:into:)``): a string
    /// value's to `strings[id]`, its id, and a number's to `numbers[slot - stringCount]`.
    ///
    /// For the numbering's first segment, whose value ids are the snapshot's numbers (see
    /// ``ValueLabels``), `strings` is a tally's own values: no slot counts of every value to
    /// clear and fold (0.7 MB each on archive-100k, two a split search), only the numbers'.
    func countStrings(
        _ docs: ArraySlice<Int32>, base: Int32, of segment: Segment, into strings: UnsafeMutableBufferPointer<Int32>,
        numbers: UnsafeMutableBufferPointer<Int32>
    ) {
        precondition(countsStringsInPlace && numbers.count >= slotCount - stringCount)
        docs.withUnsafeBufferPointer { docs in
            countPacked(docs, base: base, of: segment, strings: strings, numbers: numbers.baseAddress!)
        }
    }

    private func countPacked(
        _ docs: UnsafeBufferPointer<Int32>, base: Int32, of segment: Segment,
        strings: UnsafeMutableBufferPointer<Int32>, numbers: UnsafeMutablePointer<Int32>
    ) {
        let pairs = segment.pairValue
        cvk_count_packed_slots(
            docs.baseAddress, docs.count, base, segment.docAttributeStart.baseAddress,
            pairs.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(pairs.width), UInt32(stringCount),
            numberSlots.baseAddress, strings.baseAddress, numbers)
    }

    /// Adds slot counts to `tally`, in its snapshot's numbers, and notes the attributes seen.
    func fold(
        _ counts: UnsafeMutableBufferPointer<Int32>, of segment: Segment, into tally: FacetTally,
        _ numbers: SegmentNumbers, _ numbering: FacetNumbering
    ) {
        // Every value, without a branch: whether one was counted varies like a coin toss for a
        // few thousand hits, and the branch on it was mispredicted at every change. Adding 0
        // changes nothing; a counted value's attribute is seen. (Buffers in locals: read through
        // the tally and the numbers, classes, each was read again after every store.)
        let values = tally.values
        let attributeNumbers = numbers.attributes
        let valueNumbers = numbers.values
        let valueAttribute = segment.valueAttribute
        tally.seen.withMemoryRebound(to: UInt8.self) { seen in
            for value in 0..<stringCount {
                let count = counts[value]
                values[Int(valueNumbers[value])] &+= count
                seen[Int(attributeNumbers[Int(valueAttribute[value])])] |= count != 0 ? 1 : 0
            }
        }
        foldNumbers(
            UnsafeMutableBufferPointer(rebasing: counts[stringCount...]), of: segment, into: tally, numbers, numbering)
    }

    /// Adds the numbers' slot counts (slot less ``stringCount``) to `tally` and notes the
    /// attributes seen.
    func foldNumbers(
        _ counts: UnsafeMutableBufferPointer<Int32>, of segment: Segment, into tally: FacetTally,
        _ numbers: SegmentNumbers, _ numbering: FacetNumbering
    ) {
        for (offset, attribute) in bucketAttribute.enumerated() where counts[offset] != 0 {
            let global = Int(numbers.attributes[Int(attribute)])
            tally.seen[global] = true
            tally.buckets[Int(numbering.bucketStart[global]) + Int(bucketIndex[offset])] &+= counts[offset]
        }
        let textStart = bucketAttribute.count
        for (offset, id) in textNumberIDs.enumerated() where counts[textStart + offset] != 0 {
            let global = Int(numbers.attributes[Int(segment.attribute(ofValue: id))])
            tally.seen[global] = true
            tally.addNumber(segment.number(id), attribute: global, count: counts[textStart + offset])
        }
    }
}

extension Segment {
    /// The segment's ``FacetSlots`` under `numbering`'s layouts: kept with the segment, and made
    /// again when a snapshot lays its numbers out in other buckets. Made under the lock, so the two
    /// halves of a split count wait for one making instead of both making them.
    func facetSlots(_ numbers: SegmentNumbers, _ numbering: FacetNumbering) -> FacetSlots {
        slotsCache.withLock { kept in
            if let slots = kept, slots.matches(numbers, numbering) { return slots }
            let made = FacetSlots(self, numbers: numbers, numbering: numbering)
            kept = made
            return made
        }
    }
}
