import CVectorKernels
import Testing

/// The C loops that count a segment's attribute pairs into slots (16-bit slots, and value ids
/// read in place from a packed column with numbers' ids mapped), against a plain loop: documents
/// spread over a segment that does not start at 0, some without pairs, lists shorter and longer
/// than the prefetch distance.
@Suite struct FacetCountKernelTests {
    struct Segment {
        var pairStart: [UInt32]
        var slots: [UInt32]
        var slotCount: Int
    }

    static func segment(documents: Int, slotCount: Int, rng: inout SplitMix64) -> Segment {
        var pairStart: [UInt32] = [0]
        var slots = [UInt32]()
        for _ in 0..<documents {
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                slots.append(UInt32.random(in: 0..<UInt32(slotCount), using: &rng))
            }
            pairStart.append(UInt32(slots.count))
        }
        return Segment(pairStart: pairStart, slots: slots, slotCount: slotCount)
    }

    /// What the kernel must add: one per pair of each document.
    static func expected(_ docs: [Int32], base: Int32, _ segment: Segment) -> [Int32] {
        var counts = [Int32](repeating: 0, count: segment.slotCount)
        for doc in docs {
            let local = Int(doc - base)
            for pair in Int(segment.pairStart[local])..<Int(segment.pairStart[local + 1]) {
                counts[Int(segment.slots[pair])] += 1
            }
        }
        return counts
    }

    @Test(arguments: [(40, 0), (300, 3), (5_000, 17)])
    func everyPairOfEveryDocumentIsCountedOnce(documents: Int, seed: UInt64) {
        var rng = SplitMix64(state: seed)
        let base: Int32 = 1_000
        for slotCount in [7, 65_536, 70_000] {
            let segment = Self.segment(documents: documents, slotCount: slotCount, rng: &rng)
            for share in [0.0, 0.02, 0.5, 1.0] {
                let docs = (0..<Int32(documents)).filter { _ in Double.random(in: 0..<1, using: &rng) < share }
                    .map { $0 + base }
                let want = Self.expected(docs, base: base, segment)
                var counts = [Int32](repeating: 0, count: slotCount)
                if slotCount <= 65_536 {
                    let narrow = segment.slots.map { UInt16($0) }
                    cvk_count_slots16(docs, docs.count, base, segment.pairStart, narrow, &counts)
                } else {
                    // The slots as value ids: the last 5,000 slots are numbers' ids, given the
                    // slots in reverse (less the strings), so an id unmapped would count in the
                    // wrong slot.
                    let strings = slotCount - 5_000
                    let numberSlots = (0..<5_000).map { UInt32(slotCount - 1 - $0 - strings) }
                    let ids = segment.slots.map { $0 < strings ? $0 : UInt32(strings) + UInt32(slotCount - 1) - $0 }
                    let (width, bits) = Self.packed(ids)
                    // Into one array (numbers after the strings), and into two.
                    counts.withUnsafeMutableBufferPointer { counts in
                        cvk_count_packed_slots(
                            docs, docs.count, base, segment.pairStart, bits, width, UInt32(strings), numberSlots,
                            counts.baseAddress, counts.baseAddress! + strings)
                    }
                    var stringCounts = [Int32](repeating: 0, count: strings)
                    var numberCounts = [Int32](repeating: 0, count: 5_000)
                    cvk_count_packed_slots(
                        docs, docs.count, base, segment.pairStart, bits, width, UInt32(strings), numberSlots,
                        &stringCounts, &numberCounts)
                    #expect(stringCounts + numberCounts == want, "two arrays, share \(share)")
                }
                #expect(counts == want, "documents \(documents) slots \(slotCount) share \(share)")
            }
        }
    }

    /// `values` at the bit width the largest needs, end to end, with 8 bytes of padding.
    static func packed(_ values: [UInt32]) -> (width: UInt32, bytes: [UInt8]) {
        let width = UInt32.bitWidth - (values.max() ?? 0).leadingZeroBitCount
        var bytes = [UInt8](repeating: 0, count: (width * values.count + 7) / 8 + 8)
        for (position, value) in values.enumerated() {
            for bit in 0..<width where value >> bit & 1 == 1 {
                let at = position * width + bit
                bytes[at / 8] |= 1 << (at % 8)
            }
        }
        return (UInt32(width), bytes)
    }
}
