import Testing

@testable import SearchSession

/// Counters changed by documents counted out and in, netted by sorting: the same net changes
/// a dictionary of counters sums, each changed counter once, and none for counters that cancel.
@Suite struct FacetCounterChangesTests {
    @Test(arguments: [1, 2, 3])
    func nettedChangesAreWhatADictionarySums(seed: UInt64) {
        var rng = SplitMix64(state: seed)
        var changes = FacetCounterChanges()
        var expected = [FacetCounter: Int32]()
        // Few slots and many notes: most counters are noted often, both ways.
        for _ in 0..<5_000 {
            let slot = Int.random(in: 0..<40, using: &rng)
            let counter: FacetCounter =
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: .type(slot)
                case 1: .category(slot)
                case 2: .value(slot + 1 << 40)
                case 3: .bucket(slot)
                default: .textNumber(attribute: Int32(slot % 3), label: "\(slot % 5)")
                }
            let up = Bool.random(using: &rng)
            changes.note(counter, up: up)
            expected[counter, default: 0] += up ? 1 : -1
        }
        let netted = changes.netted()
        #expect(Set(netted.map(\.counter)).count == netted.count)
        #expect(netted.allSatisfy { $0.change != 0 })
        #expect(
            Dictionary(uniqueKeysWithValues: netted.map { ($0.counter, $0.change) })
                == expected.filter { $0.value != 0 })
    }

    @Test func aDocumentCountedOutAndInAgainChangesNothing() {
        var changes = FacetCounterChanges()
        let counters: [FacetCounter] = [.type(2), .category(7), .category(1), .value(99), .bucket(0)]
        for counter in counters { changes.note(counter, up: false) }
        for counter in counters.reversed() { changes.note(counter, up: true) }
        changes.note(.textNumber(attribute: 1, label: "4"), up: true)
        changes.note(.textNumber(attribute: 1, label: "4"), up: false)
        #expect(changes.netted().isEmpty)
    }

    @Test(arguments: [0, 1, 300, 5_000])
    func theRadixSortOrdersAsTheStandardSortDoes(count: Int) {
        var rng = SplitMix64(state: UInt64(count) + 7)
        // Keys shaped as a change's (kind on top, slot, sign), keys of any bits, and many equal.
        let shaped = (0..<count).map { _ in
            UInt64.random(in: 0..<4, using: &rng) << 62 | UInt64.random(in: 0..<100_000, using: &rng) << 1
                | UInt64.random(in: 0..<2, using: &rng)
        }
        let any = (0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
        let equal = (0..<count).map { _ in UInt64.random(in: 0..<3, using: &rng) << 40 }
        for keys in [shaped, any, equal] { #expect(FacetCounterChanges.radixSorted(keys) == keys.sorted()) }
    }
}
