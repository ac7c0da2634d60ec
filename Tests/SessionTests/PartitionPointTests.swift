import Testing

@testable import SearchSession

@Suite struct PartitionPointTests {
    @Test func findsTheFirstElementOfTheSecondPart() {
        let numbers: [Int32] = [1, 3, 3, 5, 8, 13]
        #expect(numbers.partitionPoint { $0 >= 0 } == 0)
        #expect(numbers.partitionPoint { $0 >= 3 } == 1)
        #expect(numbers.partitionPoint { $0 >= 4 } == 3)
        #expect(numbers.partitionPoint { $0 >= 13 } == 5)
        #expect(numbers.partitionPoint { $0 >= 14 } == 6)
        #expect([Int32]().partitionPoint { $0 >= 1 } == 0)
        // A slice answers in its own indices.
        #expect(numbers[2...].partitionPoint { $0 >= 8 } == 4)
        var rng = SplitMix64(state: 3)
        for _ in 0..<200 {
            let sorted = (0..<Int.random(in: 0...40, using: &rng)).map { _ in Int.random(in: 0...30, using: &rng) }
                .sorted()
            let bound = Int.random(in: -1...31, using: &rng)
            #expect(sorted.partitionPoint { $0 >= bound } == (sorted.firstIndex { $0 >= bound } ?? sorted.count))
        }
    }
}
