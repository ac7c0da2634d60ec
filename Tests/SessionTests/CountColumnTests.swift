import Testing

@testable import SearchSession

/// The value counts a tally hands over without a copy: read as an array would be, copied when a
/// holder changes a count another holder still reads.
@Suite struct CountColumnTests {
    @Test func aColumnReadsAsTheArrayItWasMadeFrom() {
        let counts: [Int32] = [0, 3, -2, 7, 0, 1]
        let column = CountColumn(counts)
        #expect(Array(column) == counts)
        #expect(column.count == counts.count)
        #expect(column[3] == 7)
        #expect(column.withUnsafeBufferPointer { Array($0) } == counts)
        #expect(column == CountColumn(counts))
        #expect(column != CountColumn([0, 3, -2, 7, 0, 2]))
        #expect(CountColumn([Int32]()).isEmpty)
    }

    @Test func theMemoryATallyCountsIntoIsTheColumnItHandsOver() {
        let (column, memory) = CountColumn.zeros(5)
        #expect(Array(column) == [0, 0, 0, 0, 0])
        memory[1] = 4
        memory[4] &+= 2
        #expect(Array(column) == [0, 4, 0, 0, 2])
    }

    @Test func changingACountOfASharedColumnLeavesTheOtherHolderAsItWas() {
        let original = CountColumn([1, 2, 3])
        var changed = original
        changed[0] = 10
        changed[2] += 1
        #expect(Array(original) == [1, 2, 3])
        #expect(Array(changed) == [10, 2, 4])
        // A column held once changes in place.
        var alone = CountColumn([5, 5])
        alone[1] = 6
        #expect(Array(alone) == [5, 6])
    }

    @Test func aPaddedColumnIsTheCountsThenZeros() {
        let column = CountColumn([4, 0, 9])
        #expect(Array(column.padded(to: 6)) == [4, 0, 9, 0, 0, 0])
        #expect(column.padded(to: 3) == column)
        #expect(Array(CountColumn([Int32]()).padded(to: 2)) == [0, 0])
        #expect(Array(column) == [4, 0, 9])
    }

    @Test func facetCountsMadeFromATallyHoldWhatItCounted() {
        let engine = SearchEngine(entities: RandomCatalog.entities(300, seed: 4))
        let snapshot = engine.snapshot
        let tally = FacetTally(snapshot.numbering)
        for (si, segment) in snapshot.segments.enumerated() {
            for local in 0..<segment.count { tally.add(local, of: segment, snapshot.numbering.segmentNumbers[si]) }
        }
        let expected = Array(tally.values)
        #expect(expected.contains { $0 > 1 })
        let counts = tally.counts
        #expect(Array(counts.values) == expected)
        #expect(counts.values == snapshot.everythingCounts.values)
    }
}
