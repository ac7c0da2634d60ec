import Testing

@testable import SearchSession

/// A segment numbers its string values attribute by attribute, and a snapshot's numbering
/// describes its values as runs of one attribute that say exactly what `valueAttribute` says,
/// before and after writes bring new values.
@Suite struct ValueRunsTests {
    static let analyzer = Analyzer(synonyms: [])

    /// Entities whose attributes take turns, so the values are met attributes interleaved.
    static func entities(_ count: Int, idPrefix: String, valuePrefix: String) -> [Entity] {
        (0..<count).map { index in
            var attributes: [String: AttributeValue] = [
                "maker": .string("\(valuePrefix)maker \(index % 7)"),
                "year": .number(Double(1900 + index)),
            ]
            if index % 2 == 0 { attributes["colour"] = .string("\(valuePrefix)colour \(index % 5)") }
            if index % 3 == 0 { attributes["room"] = .string("\(valuePrefix)room \(index)") }
            return Entity(type: "item", id: "\(idPrefix)\(index)", title: "item \(index)", attributes: attributes)
        }
    }

    /// The facet of each value the runs cover, one by one.
    static func expanded(_ runs: ValueRuns) -> [Int32] {
        (0..<runs.count).flatMap { run in
            let (facet, values) = runs[run]
            return values.map { _ in Int32(facet) }
        }
    }

    @Test func aSegmentNumbersItsStringValuesAttributeByAttributeAndItsDocumentsKeepTheirs() {
        let entities = Self.entities(40, idPrefix: "a", valuePrefix: "")
        let segment = Segment(entities: entities, analyzer: Self.analyzer)
        let attributes = Array(segment.valueAttribute)
        #expect(attributes == attributes.sorted())
        // Within an attribute, in the order the documents met them.
        let makers = segment.valueStrings.indices
            .filter { segment.name(segment.attributeNames[Int(segment.valueAttribute[$0])]) == "maker" }
            .map { segment.name(segment.valueStrings[$0]) }
        #expect(makers == (0..<7).map { "maker \($0)" })
        for (doc, entity) in entities.enumerated() {
            #expect(segment.entity(doc).attributes == entity.attributes)
        }
    }

    @Test func theRunsSayWhatEachValuesAttributeIs() {
        let first = Segment(entities: Self.entities(40, idPrefix: "a", valuePrefix: ""), analyzer: Self.analyzer)
        var numbering = FacetNumbering(segments: [first])
        // One run per attribute with strings.
        #expect(numbering.valueRuns.count == 3)
        #expect(Self.expanded(numbering.valueRuns) == numbering.valueAttribute)
        // A write with values known and new: the new ones appended, a run per attribute more.
        let second = Segment(entities: Self.entities(12, idPrefix: "b", valuePrefix: "new "), analyzer: Self.analyzer)
        let third = Segment(entities: Self.entities(5, idPrefix: "c", valuePrefix: ""), analyzer: Self.analyzer)
        numbering = numbering.extended(with: [second, third])
        // (Five when the last attribute of the first segment's values is the first of the second's.)
        #expect((5...6).contains(numbering.valueRuns.count))
        #expect(numbering.valueRuns.valueCount == numbering.valueLabels.count)
        #expect(Self.expanded(numbering.valueRuns) == numbering.valueAttribute)
        // Interleaved facets make a run each; a facet met twice in a row extends its run.
        let runs = ValueRuns([0, 0, 1, 0, 2, 2, 2])
        #expect(runs.count == 4)
        #expect(Self.expanded(runs) == [0, 0, 1, 0, 2, 2, 2])
        #expect(runs[3].facet == 2 && runs[3].values == 4..<7)
        #expect(ValueRuns(oneFacet: 0).count == 0 && ValueRuns(oneFacet: 3)[0].values == 0..<3)
    }
}
