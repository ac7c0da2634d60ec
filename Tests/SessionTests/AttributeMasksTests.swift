import Testing

@testable import SearchSession

/// Which attributes each document has, as bits, and the attributes a refinement's counts note
/// from them: those of every document looked at (a selected value the constraints count to 0
/// still shows, so it can be cleared).
@Suite struct AttributeMasksTests {
    /// 600 entities; `city` only on odd ones, `note` only on the last; with `extraAttributes` more
    /// attributes whose names sort first, so `city` and `note` are numbered past them.
    func entities(extraAttributes: Int) -> [Entity] {
        (0..<600).map { i in
            var attributes: [String: AttributeValue] = [:]
            for a in 0..<extraAttributes { attributes["a\(100 + a)"] = .number(Double(i % 7 + a)) }
            if i % 2 == 1 { attributes["city"] = .string(["Oslo", "Paris", "Rome"][i % 3]) }
            if i == 599 { attributes["note"] = .number(1) }
            return Entity(type: "t", id: "e\(i)", title: "red item", category: "A", attributes: attributes)
        }
    }

    /// 2, 72 and 302 attributes: one word a document; two; four, whose last bit `city` and
    /// `note` share with the other attributes numbered from 255.
    @Test(arguments: [0, 70, 300])
    func notedDocumentsShowExactlyTheirAttributes(extraAttributes: Int) throws {
        let entities = entities(extraAttributes: extraAttributes)
        let snapshot = SearchEngine(entities: entities).snapshot
        let segment = try #require(snapshot.segments.first)
        let masks = segment.attributeMasks.masks
        let layout = segment.attributeMasks.layout
        #expect(layout.words == [0: 1, 70: 2, 300: 4][extraAttributes])
        let city = try #require(segment.attributeNumber(named: "city"))
        #expect(layout.isShared(layout.bit(of: city)) == (extraAttributes > 254))
        for doc in 0..<segment.count {
            let entity = entities.first { $0.id == segment.ref(of: doc).id }!
            var expected = [UInt64](repeating: 0, count: layout.words)
            for name in entity.attributes.keys {
                let bit = layout.bit(of: segment.attributeNumber(named: name)!)
                expected[bit / 64] |= 1 << UInt64(bit % 64)
            }
            #expect(Array(masks[doc * layout.words..<(doc + 1) * layout.words]) == expected, "\(entity.id)")
        }
        // Noting the even documents shows their attributes only; noting an odd one adds city,
        // the last one note: whichever bit or values they are noted by.
        for noted in [[0, 2, 4], [0, 2, 4, 7], [0, 2, 4, 7, 599]] {
            let counts = SegmentCounts(segment, notesPresence: true)
            for global in noted {
                let doc = try #require((0..<segment.count).first { segment.ref(of: $0).id == "e\(global)" })
                counts.notePresent(attributesOf: doc, masks)
            }
            let tally = FacetTally(snapshot.numbering)
            counts.fold(into: tally, snapshot.numbering.segmentNumbers[0])
            let shown = Set(
                snapshot.numbering.attributeNames.indices.filter { tally.seen[$0] }.map {
                    snapshot.numbering.attributeNames[$0]
                })
            let expected = Set(noted.flatMap { entities[$0].attributes.keys })
            #expect(shown == expected, "noting \(noted)")
        }
    }
}
