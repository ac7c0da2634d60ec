import Testing

@testable import SearchSession

/// What the segment builder numbers by its names' numbers (categories and their ancestors,
/// attributes, values, types) and the phrases it lists once per document, checked on the
/// segment it builds.
@Suite struct SegmentBuilderNumberingTests {
    static let analyzer = Analyzer(synonyms: [])

    /// Each category's path and its parent's path ("" for none), in the segment's numbering.
    static func categories(of segment: Segment) -> [(path: String, parent: String)] {
        segment.categoryNames.indices.map { number in
            let parent = segment.categoryParent[number]
            return (
                segment.name(segment.categoryNames[number]),
                parent == .max ? "" : segment.name(segment.categoryNames[Int(parent)])
            )
        }
    }

    /// The path of each document's category ("" for none).
    static func documentCategories(of segment: Segment) -> [String] {
        (0..<segment.count).map { doc in
            let category = segment.docCategory[doc]
            return category == .max ? "" : segment.name(segment.categoryNames[Int(category)])
        }
    }

    @Test func aPathWithEmptyPartsIsThePathOfItsOtherParts() {
        // Catalog files normalise paths; entities made in code may not.
        let paths = ["Music//Rock", "/Music/Rock/", "Music/Rock", "/", "Music", "//Jazz"]
        let entities = paths.enumerated().map {
            Entity(type: "t", id: "e\($0.offset)", title: "x", category: $0.element)
        }
        let segment = Segment(entities: entities, analyzer: Self.analyzer)
        #expect(
            Self.categories(of: segment).map { "\($0.path) < \($0.parent)" } == [
                "Music < ", "Music/Rock < Music", "Jazz < ",
            ])
        #expect(
            Self.documentCategories(of: segment) == ["Music/Rock", "Music/Rock", "Music/Rock", "", "Music", "Jazz"])
    }

    @Test func namesThatAreAlsoTagsValuesOrTypesNumberAsCategoriesOnce() {
        // "Music" is a tag, a type and a value before it is a category's ancestor; "Music/Rock"
        // a tag before it is a category.
        var first = Entity(type: "Music", id: "a", title: "first", tags: ["Music", "Music/Rock"])
        first.attributes["genre"] = .string("Music")
        let second = Entity(type: "t", id: "b", title: "second", category: "Music/Rock/Indie")
        let third = Entity(type: "Music", id: "c", title: "third", category: "Music")
        var fourth = Entity(type: "t", id: "d", title: "fourth", category: "Music/Rock")
        fourth.attributes["genre"] = .string("Rock")
        let segment = Segment(entities: [first, second, third, fourth], analyzer: Self.analyzer)
        #expect(
            Self.categories(of: segment).map { "\($0.path) < \($0.parent)" } == [
                "Music < ", "Music/Rock < Music", "Music/Rock/Indie < Music/Rock",
            ])
        #expect(Self.documentCategories(of: segment) == ["", "Music/Rock/Indie", "Music", "Music/Rock"])
        #expect(segment.typeNames.map(segment.name) == ["Music", "t"])
        #expect(segment.attributeNames.map(segment.name) == ["genre"])
        #expect(segment.valueStrings.map(segment.name) == ["Music", "Rock"])
    }

    @Test func spellingsUnicodeCallsEquivalentAreOneTypeCategoryAttributeAndValue() {
        // "é" composed and as "e" + U+0301 (and "Å" as the Ångström sign): one each, under the
        // spelling met first, as String keys numbered them.
        let decomposed = "Cafe\u{301}"
        var first = Entity(type: decomposed, id: "a", title: "first", category: "\(decomposed)/Bar")
        first.attributes["ge\u{301}nre"] = .string(decomposed)
        var second = Entity(type: "Café", id: "b", title: "second", category: "Café/Bar")
        second.attributes["génre"] = .string("Café")
        var third = Entity(type: "Café", id: "c", title: "third", category: "Café")
        third.attributes["génre"] = .string("\u{212B}ngstr\u{F6}m")
        var fourth = Entity(type: "t", id: "d", title: "fourth", category: "Café/Bar/\u{C5}")
        fourth.attributes["génre"] = .string("\u{C5}ngstr\u{F6}m")
        let segment = Segment(entities: [first, second, third, fourth], analyzer: Self.analyzer)
        #expect(segment.typeNames.map(segment.name) == [decomposed, "t"])
        #expect(segment.attributeNames.map(segment.name) == ["ge\u{301}nre"])
        #expect(
            segment.valueStrings.map { Array(segment.name($0).unicodeScalars) } == [
                Array(decomposed.unicodeScalars), Array("\u{212B}ngstr\u{F6}m".unicodeScalars),
            ])
        #expect(
            Self.categories(of: segment).map { "\($0.path) < \($0.parent)" } == [
                "\(decomposed) < ", "\(decomposed)/Bar < \(decomposed)", "\(decomposed)/Bar/\u{C5} < \(decomposed)/Bar",
            ])
        #expect(Set(segment.docType).count == 2 && segment.docType[0] == segment.docType[1])
        #expect(segment.docCategory[0] == segment.docCategory[1])
    }

    @Test func aDocumentIsListedOnceUnderAPhraseItHasTwice() throws {
        // The title and two tags are the same phrase; another document has it once.
        let entities = [
            Entity(type: "t", id: "a", title: "Red Guitar", tags: ["red guitar", "RED GUITAR", "drum"]),
            Entity(type: "t", id: "b", title: "piano", tags: ["red guitar"]),
            Entity(type: "t", id: "c", title: "red guitar"),
        ]
        let segment = Segment(entities: entities, analyzer: Self.analyzer)
        let place = try #require(segment.phrase(hash: Segment.hash(phrase: ["red", "guitar"])))
        var docs = [UInt32]()
        segment.phraseDocs(place, reads: PostingReads()).forEach { doc, _ in docs.append(doc) }
        #expect(docs == [0, 1, 2])
        let drum = try #require(segment.phrase(hash: Segment.hash(phrase: ["drum"])))
        docs = []
        segment.phraseDocs(drum, reads: PostingReads()).forEach { doc, _ in docs.append(doc) }
        #expect(docs == [0])
        #expect(segment.phrase(hash: Segment.hash(phrase: ["piano", "red"])) == nil)
    }
}
