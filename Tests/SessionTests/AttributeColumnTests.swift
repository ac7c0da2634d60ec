import Testing

@testable import SearchSession

/// An attribute's column: each document's value of it, as its row of pairs has it, and filters
/// read from it answering as the rows do.
@Suite struct AttributeColumnTests {
    @Test func aColumnHoldsEachDocumentsValueOfItsAttributeOrNone() throws {
        let entities = RandomCatalog.entities(800, seed: 12)
        let segment = try #require(SearchEngine(entities: entities).snapshot.segments.first)
        // year (numbers), city (strings), size (numbers and strings), price; and a document's
        // value found in its row is the one its entity has.
        for name in ["year", "city", "size", "price"] {
            let attribute = try #require(segment.attributeNumber(named: name))
            let column = segment.column(ofAttribute: attribute)
            #expect(segment.column(ofAttribute: attribute) === column, "made once, then kept")
            for doc in 0..<segment.count {
                let entity = entities.first { $0.id == segment.ref(of: doc).id }!
                let id = column.ids[doc]
                if let value = entity.attributes[name] {
                    #expect(id != AttributeColumn.missing)
                    #expect(segment.attribute(ofValue: id) == attribute)
                    let stored: AttributeValue =
                        segment.isNumber(id)
                        ? .number(segment.number(id)) : .string(segment.name(segment.valueStrings[Int(id)]))
                    #expect(stored == value, "\(name) of \(entity.id)")
                } else {
                    #expect(id == AttributeColumn.missing, "\(name) of \(entity.id)")
                }
            }
        }
    }

    @Test func filtersReadFromTheColumnMatchWhatTheEntitiesHold() throws {
        let entities = RandomCatalog.entities(600, seed: 5)
        let segment = try #require(SearchEngine(entities: entities).snapshot.segments.first)
        let filters: [AttributeFilter] = [
            .range("year", min: 1980, max: 2000), .range("price", min: nil, max: 10),
            .anyOf("city", ["Oslo", "Paris"]),
            .anyOf("size", ["M", "12"]), .range("size", min: 30, max: nil), .anyOf("nowhere", ["x"]),
        ]
        for filter in filters {
            let compiled = CompiledFilter(filter, segment: segment)
            defer { compiled.release() }
            for doc in 0..<segment.count {
                let entity = entities.first { $0.id == segment.ref(of: doc).id }!
                let expected: Bool
                switch (filter.condition, entity.attributes[filter.attribute]) {
                case (_, nil): expected = false
                case (.range(let low, let high), .number(let n)?):
                    expected = n >= (low ?? -.infinity) && n <= (high ?? .infinity)
                case (.range, .string?): expected = false
                case (.anyOf(let texts), .string(let s)?): expected = texts.contains(s)
                case (.anyOf(let texts), .number(let n)?): expected = texts.compactMap(Double.init).contains(n)
                }
                #expect(compiled.matches(doc, in: segment) == expected, "\(filter) on \(entity.id)")
            }
        }
    }
}
