import Testing

@testable import SearchSession

/// Kept term counts, a byte a count: the same counts back, whatever their size, and the same
/// answers as the four-byte counts they replace.
@Suite struct CompactFacetCountsTests {
    /// `count` counts, mostly small, some at and past a byte's edge, a few negative (a
    /// subtraction's intermediate counts can be).
    static func randomCounts(_ count: Int, using rng: inout SplitMix64) -> [Int32] {
        let edges: [Int32] = [0, 1, 254, 255, 256, 65_535, 91_600, -1, -300]
        return (0..<count).map { _ in
            Int.random(in: 0..<10, using: &rng) < 8
                ? Int32.random(in: 0..<40, using: &rng) : edges.randomElement(using: &rng)!
        }
    }

    static func randomFacetCounts(
        types: Int, categories: Int, values: Int, buckets: Int, using rng: inout SplitMix64
    ) -> FacetCounts {
        FacetCounts(
            types: randomCounts(types, using: &rng), categories: randomCounts(categories, using: &rng),
            values: CountColumn(randomCounts(values, using: &rng)), buckets: randomCounts(buckets, using: &rng),
            textNumbers: [3: ["1.5": 2, "2": 300]])
    }

    @Test func countsComeBackTheSame() {
        var rng = SplitMix64(state: 5)
        for round in 0..<50 {
            let counts = Self.randomFacetCounts(
                types: round % 7, categories: 40, values: 3_000 + round, buckets: 12, using: &rng)
            let compact = CompactFacetCounts(counts)
            #expect(compact.counts == counts, "round \(round)")
            // A byte a count, and eight more for a count a byte cannot hold.
            let all = counts.types + counts.categories + counts.values + counts.buckets
            let large = all.count { !(0..<255).contains($0) }
            #expect(compact.bytes == all.count + 8 * large + 32 * 2, "round \(round)")
        }
    }

    @Test func subtractingMatchesTheFourByteCounts() {
        var rng = SplitMix64(state: 8)
        for round in 0..<50 {
            let counts = Self.randomFacetCounts(types: 5, categories: 40, values: 2_000, buckets: 12, using: &rng)
            // The other counts may be shorter (made in an older numbering): as many as both have.
            let other = FacetCounts(
                types: Self.randomCounts(5, using: &rng), categories: Self.randomCounts(40 - round % 3, using: &rng),
                values: CountColumn(Self.randomCounts(2_000 - round, using: &rng)),
                buckets: Self.randomCounts(12, using: &rng),
                textNumbers: [3: ["2": 100], 4: ["7": 1]])
            #expect(CompactFacetCounts(counts).subtracting(other) == counts.subtracting(other), "round \(round)")
        }
    }

    @Test func changesApplyAsToTheFourByteCounts() {
        var rng = SplitMix64(state: 13)
        for round in 0..<50 {
            var counts = Self.randomFacetCounts(types: 6, categories: 40, values: 1_500, buckets: 12, using: &rng)
            let compact = CompactFacetCounts(counts)
            // Changes that carry counts across a byte's edge both ways, and by their text.
            var changes = [FacetCounter: Int32]()
            for _ in 0..<200 {
                let change = [-300, -2, -1, 1, 2, 255, 300].randomElement(using: &rng)!
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: changes[.type(Int.random(in: 0..<6, using: &rng)), default: 0] += Int32(change)
                case 1: changes[.category(Int.random(in: 0..<40, using: &rng)), default: 0] += Int32(change)
                case 2: changes[.value(Int.random(in: 0..<1_500, using: &rng)), default: 0] += Int32(change)
                default: changes[.bucket(Int.random(in: 0..<12, using: &rng)), default: 0] += Int32(change)
                }
            }
            changes[.textNumber(attribute: 3, label: "2"), default: 0] -= 300
            changes[.textNumber(attribute: 5, label: "9"), default: 0] += 4
            for (counter, change) in changes {
                switch counter {
                case .type(let slot): counts.types[slot] += change
                case .category(let slot): counts.categories[slot] += change
                case .value(let slot): counts.values[slot] += change
                case .bucket(let slot): counts.buckets[slot] += change
                case .textNumber(let attribute, let label):
                    counts.textNumbers[attribute, default: [:]][label, default: 0] += change
                }
            }
            counts.textNumbers = FacetCounts.nonEmpty(counts.textNumbers)
            let changed = compact.applying(changes.map { ($0.key, $0.value) })
            #expect(changed.counts == counts, "round \(round)")
            // The same bytes as counts made afresh: kept counts compare equal to a recount.
            #expect(changed == CompactFacetCounts(counts), "round \(round)")
        }
    }

    @Test func paddedToANumberingCountsItsNewValuesZero() {
        let snapshot = CatalogSnapshot(version: 1, entities: RandomCatalog.entities(400, seed: 3), synonyms: [])
        let numbering = snapshot.numbering
        var rng = SplitMix64(state: 2)
        // Made in an older numbering: a few values fewer.
        let counts = Self.randomFacetCounts(
            types: numbering.typeNames.count, categories: numbering.categoryNames.count,
            values: numbering.valueLabels.count - 3, buckets: Int(numbering.bucketStart.last ?? 0), using: &rng)
        let compact = CompactFacetCounts(counts)
        #expect(compact.padded(to: numbering) == CompactFacetCounts(counts.padded(to: numbering)))
        #expect(compact.padded(to: numbering).counts == counts.padded(to: numbering))
    }
}
