import Testing

@testable import SearchSession

/// Postings store an 8-bit code into their segment's table of frequencies instead of a Float32:
/// exact while a segment has at most 256 distinct frequencies, rounded (order kept) past that.
@Suite struct PostingFrequencyTests {
    /// Decodes every code of `table` through a ``PostingFrequencies`` view, as searches read them.
    static func decoded(_ table: FrequencyTable) -> [Float] {
        table.codes.withUnsafeBufferPointer { codes in
            table.values.withUnsafeBufferPointer { values in
                let view = PostingFrequencies(codes: codes, values: values)
                return (0..<view.count).map { view[$0] }
            }
        }
    }

    @Test func fewDistinctFrequenciesComeBackToTheBit() {
        var generator = SplitMix64(state: 12)
        // Saturated frequencies as a small segment makes them: a couple of hundred tf values,
        // repeated.
        let distinct = (0..<200).map { _ in TextIndex.saturate(Float(generator.next() % 10_000) / 997 + 0.1) }
        let frequencies = (0..<20_000).map { _ in distinct[Int(generator.next() % 200)] }
        #expect(Set(frequencies).count > 128)
        let table = FrequencyTable(frequencies)
        #expect(Self.decoded(table).map(\.bitPattern) == frequencies.map(\.bitPattern))
        #expect(table.values.count == 256)
        #expect(table.values == table.values.sorted())
    }

    @Test func moreThanACodeHoldsAreRoundedInOrderAndClose() {
        var generator = SplitMix64(state: 13)
        let frequencies = (0..<200_000).map { _ in Float(generator.next() % 1_000_000_000) / 1e9 * 2 + 0.2 }
        #expect(Set(frequencies).count > FrequencyTable.capacity)
        let table = FrequencyTable(frequencies)
        #expect(table.values.count == FrequencyTable.capacity)
        let decoded = Self.decoded(table)
        // 0.2 to 2.2 is 3.5 octaves: 6 mantissa bits (64 values an octave) keep 256 or fewer, and
        // rounding to the nearest moves a value by at most half a step.
        for (original, back) in zip(frequencies, decoded) {
            #expect(abs(back - original) <= original / 128)
        }
        // A larger frequency never decodes below a smaller one: rounding keeps the ranking's order.
        let order = frequencies.indices.sorted { frequencies[$0] < frequencies[$1] }
        #expect(zip(order, order.dropFirst()).allSatisfy { decoded[$0] <= decoded[$1] })
    }

    @Test func aCodeOutsideTheTableReadsInsideIt() {
        let values: [Float] = [0.5, 1, 1.5, 1.5]
        let codes: [UInt8] = [3, 4, 255]
        codes.withUnsafeBufferPointer { codes in
            values.withUnsafeBufferPointer { values in
                let view = PostingFrequencies(codes: codes, values: values)
                #expect((0..<3).map { view[$0] } == [1.5, 0.5, 1.5])
            }
        }
    }

    @Test func anEmptySegmentHasATableOfOne() {
        let table = FrequencyTable([])
        #expect(table.codes.isEmpty)
        #expect(table.values == [0])
    }

    @Test func aSegmentsPostingsDecodeToSaturatedFrequenciesOfItsTable() throws {
        // Every posting of every term of a 2,000-entity segment has a code in its table and
        // decodes to a saturated frequency (tf·(k1+1)/(tf+k1): above 0, below k1 + 1), and every
        // value of the table is some posting's: the table and the codes were made from the same
        // postings. BM25Tests checks the decoded values through scores computed by hand.
        let snapshot = CatalogSnapshot(version: 1, entities: RandomCatalog.entities(2_000, seed: 4), synonyms: [])
        let segment = try #require(snapshot.segments.first)
        #expect(segment.frequencyValues.count.nonzeroBitCount == 1)
        var seen = 0
        var used = Set<Float>()
        let reads = PostingReads()
        for number in 0..<(segment.postingStart.count - 1) {
            let postings = segment.postings(number, reads: reads)
            var docs = 0
            postings.docs.forEach { _, position in
                #expect(position == docs)
                docs += 1
            }
            #expect(docs == postings.frequencies.count)
            for position in 0..<postings.frequencies.count {
                #expect(Int(postings.frequencies.codes[position]) < segment.frequencyValues.count)
                let frequency = postings.frequencies[position]
                #expect(frequency > 0 && frequency < TextIndex.k1 + 1)
                used.insert(frequency)
                seen += 1
            }
        }
        #expect(seen == Int(segment.postingStart.last!) && seen >= 2_000)
        #expect(used.count > 1)
        #expect(used == Set(segment.frequencyValues))
    }
}
