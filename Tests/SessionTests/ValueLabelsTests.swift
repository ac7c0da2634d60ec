import Foundation
import Testing

@testable import SearchSession

/// A facet numbering's value labels and category paths read from its first segment and copied
/// for the rest: each number names the text its segments give it (and a category's path finds
/// its number), before and after the first segment is merged away; labels compare and order as Strings do; and a facet's shown values are sifted by
/// number as ``SearchEngine/ordered(_:selected:limit:counted:)`` picks them.
@Suite struct ValueLabelsTests {
    static let analyzer = Analyzer(synonyms: [])

    /// Entities whose string values are `texts` of attribute "maker" (one each), and a number.
    static func entities(_ texts: [String], idPrefix: String) -> [Entity] {
        texts.enumerated().map { index, text in
            Entity(
                type: "item", id: "\(idPrefix)\(index)", title: "item \(index)",
                attributes: ["maker": .string(text), "year": .number(Double(1900 + index))])
        }
    }

    /// Every (attribute, text) a numbering's segments hold, against the label its number has.
    static func expectLabelsMatchSegments(_ numbering: FacetNumbering, _ segments: [Segment]) {
        for (index, segment) in segments.enumerated() {
            let numbers = numbering.segmentNumbers[index]
            for local in 0..<segment.valueStrings.count {
                let number = Int(numbers.values[local])
                #expect(numbering.valueLabels[number] == segment.name(segment.valueStrings[local]))
                #expect(numbering.valueAttribute[number] == numbers.attributes[Int(segment.valueAttribute[local])])
            }
        }
    }

    @Test func labelsReadFromTheFirstSegmentAndCopiedForLaterOnes() {
        let first = Segment(
            entities: Self.entities(["Anna", "Bruno", "Chloé", "Anna"], idPrefix: "a"), analyzer: Self.analyzer)
        // "Bruno" again (numbered already), two new ones, one of them long enough for a String's heap storage.
        let second = Segment(
            entities: Self.entities(
                ["Bruno", "Dmitri", "a maker whose name is longer than fifteen bytes"], idPrefix: "b"),
            analyzer: Self.analyzer)
        let numbering = FacetNumbering(segments: [first]).extended(with: [second])
        #expect(numbering.valueLabels.count == 5)
        #expect(numbering.valueLabels.reads(from: first))
        #expect(!numbering.valueLabels.reads(from: second))
        Self.expectLabelsMatchSegments(numbering, [first, second])
        // Labels read in place and copied order as their Strings.
        for a in 0..<5 {
            for b in 0..<5 {
                #expect(
                    numbering.valueLabels.label(a, precedes: b)
                        == (numbering.valueLabels[a] < numbering.valueLabels[b]))
            }
        }
        // Only the later segment's new labels are held in the heap, and a bit a label (one word).
        #expect(
            numbering.valueLabels.heapBytes == "Dmitri".utf8.count
                + "a maker whose name is longer than fifteen bytes".utf8.count + 8 + 8)
    }

    @Test func mergingTheFirstSegmentAwayCopiesItsLabelsOut() throws {
        let first = Segment(entities: Self.entities(["Anna", "Bruno"], idPrefix: "a"), analyzer: Self.analyzer)
        let second = Segment(entities: Self.entities(["Chloé", "Bruno"], idPrefix: "b"), analyzer: Self.analyzer)
        let third = Segment(entities: Self.entities(["Dmitri"], idPrefix: "c"), analyzer: Self.analyzer)
        let numbering = FacetNumbering(segments: [first, second, third])
        let merged = Segment(
            entities: Self.entities(["Anna", "Bruno"], idPrefix: "a")
                + Self.entities(["Chloé", "Bruno"], idPrefix: "b"),
            analyzer: Self.analyzer)
        let replaced = try #require(numbering.replacing(0..<2, of: [first, second], with: merged))
        #expect(!replaced.valueLabels.reads(from: first))
        #expect(replaced.valueLabels.count == numbering.valueLabels.count)
        for number in 0..<numbering.valueLabels.count {
            #expect(replaced.valueLabels[number] == numbering.valueLabels[number])
        }
        Self.expectLabelsMatchSegments(replaced, [merged, third])
        // A run without the first segment leaves its labels where they are.
        let kept = try #require(numbering.replacing(2..<3, of: [third], with: nil))
        #expect(kept.valueLabels.reads(from: first))
    }

    /// Entities in the categories `paths` (one each).
    static func entities(inCategories paths: [String], idPrefix: String) -> [Entity] {
        paths.enumerated().map { index, path in
            Entity(type: "item", id: "\(idPrefix)\(index)", title: "item \(index)", category: path)
        }
    }

    /// Every category a numbering's segments hold, against the path its number has, the number
    /// its path finds, and its parent's number.
    static func expectCategoriesMatchSegments(_ numbering: FacetNumbering, _ segments: [Segment]) {
        for (index, segment) in segments.enumerated() {
            let numbers = numbering.segmentNumbers[index]
            for local in 0..<segment.categoryNames.count {
                let number = numbers.categories[local]
                let path = segment.name(segment.categoryNames[local])
                #expect(numbering.categoryNames[Int(number)] == path)
                #expect(numbering.category(named: path) == number)
                let parent = segment.categoryParent[local]
                #expect(
                    numbering.categoryParent[Int(number)] == (parent == .max ? -1 : numbers.categories[Int(parent)]))
            }
        }
    }

    @Test func categoriesReadFromTheFirstSegmentFoundByPathAndCopiedForLaterOnes() {
        let first = Segment(
            entities: Self.entities(inCategories: ["Home/Kitchen", "Home", "Café/Bar", "Home/Kitchen"], idPrefix: "a"),
            analyzer: Self.analyzer)
        // "Home/Kitchen" again, a new child of it, and a path a String spells otherwise ("e" and a
        // combining accent: the same path to a String, so the same category).
        let second = Segment(
            entities: Self.entities(
                inCategories: ["Home/Kitchen", "Home/Kitchen/Knives", "Cafe\u{301}/Bar", "Garden"], idPrefix: "b"),
            analyzer: Self.analyzer)
        let numbering = FacetNumbering(segments: [first]).extended(with: [second])
        // Home, Home/Kitchen, Café, Café/Bar; then Home/Kitchen/Knives and Garden.
        #expect(numbering.categoryNames.count == 6)
        #expect(numbering.categoryNames.reads(from: first))
        Self.expectCategoriesMatchSegments(numbering, [first, second])
        #expect(numbering.category(named: "Home/Kitchen/Knives") == 4)
        #expect(numbering.category(named: "Garden/Shed") == nil)
        #expect(numbering.category(named: "home") == nil)
        // Only the later segment's new paths are held in the heap, and a bit a path (one word).
        #expect(numbering.categoryNames.heapBytes == "Home/Kitchen/Knives".utf8.count + "Garden".utf8.count + 8 + 8)
    }

    @Test func mergingTheFirstSegmentAwayCopiesItsCategoriesOut() throws {
        let first = Segment(
            entities: Self.entities(inCategories: ["A/B", "C"], idPrefix: "a"), analyzer: Self.analyzer)
        let second = Segment(entities: Self.entities(inCategories: ["A/D"], idPrefix: "b"), analyzer: Self.analyzer)
        let numbering = FacetNumbering(segments: [first, second])
        let merged = Segment(
            entities: Self.entities(inCategories: ["A/B", "C"], idPrefix: "a")
                + Self.entities(inCategories: ["A/D"], idPrefix: "b"),
            analyzer: Self.analyzer)
        let replaced = try #require(numbering.replacing(0..<2, of: [first, second], with: merged))
        #expect(!replaced.categoryNames.reads(from: first))
        #expect(
            (0..<numbering.categoryNames.count).map { replaced.categoryNames[$0] }
                == (0..<numbering.categoryNames.count).map { numbering.categoryNames[$0] })
        Self.expectCategoriesMatchSegments(replaced, [merged])
    }

    @Test func labelsCompareAndOrderAsStrings() {
        let texts = ["apple", "Apple", "apples", "appl", "é", "e\u{301}", "z", "Ω", "", "ab\u{0}c"]
        let labels = ValueLabels(texts)
        for a in texts.indices {
            #expect(labels[a] == texts[a])
            for b in texts.indices {
                #expect(labels.label(a, precedes: b) == (texts[a] < texts[b]), "\(texts[a]) < \(texts[b])")
                #expect(labels.label(a, equals: texts[b]) == (texts[a] == texts[b]), "\(texts[a]) == \(texts[b])")
            }
        }
        // Composed and decomposed é are one text to a String.
        #expect(labels.label(4, equals: "e\u{301}"))
        #expect(labels.copiedOut()[7] == "Ω")
    }

    @Test func textBelowU0300IsInNFCAndOrdersByItsBytesAsStringsDo() {
        // Every scalar below U+0300 is its own NFC: text of them alone is compared by bytes.
        for value in UInt32(0x80)..<0x300 {
            let scalar = Unicode.Scalar(value)!
            #expect(
                Array(String(scalar).precomposedStringWithCanonicalMapping.unicodeScalars) == [scalar],
                "U+\(String(value, radix: 16))")
        }
        // Random labels of letters on both sides of U+0300, each pair ordered and compared as
        // Strings do, whether the labels take the bytes' way or the Strings' way.
        let letters = [
            "a", "B", "z", "0", " ", "é", "e\u{301}", "ß", "ø", "Ø", "Ā", "ǅ", "ɐ", "ʰ", "˙", "\u{2FF}", "\u{300}", "Ω",
            "東", "🎸", "ﬁ", "\u{212B}", "Å",
        ]
        var rng = SplitMix64(state: 7)
        let texts = (0..<300).map { _ in
            (0..<Int(rng.next() % 4)).map { _ in letters[Int(rng.next() % UInt64(letters.count))] }.joined()
        }
        let labels = ValueLabels(texts)
        for a in texts.indices {
            for b in texts.indices {
                #expect(labels.label(a, precedes: b) == (texts[a] < texts[b]), "\(texts[a]) < \(texts[b])")
                #expect(labels.label(a, equals: texts[b]) == (texts[a] == texts[b]), "\(texts[a]) == \(texts[b])")
            }
        }
    }

    @Test(arguments: [0, 1, 2, 3])
    func theShownValuesAreThoseOrderedPicksFromAll(seed: UInt64) {
        var rng = SplitMix64(state: seed)
        let texts = (0..<400).map { "v\(Int.random(in: 0..<100_000, using: &rng))-\($0)" }
        let labels = ValueLabels(texts)
        // Few distinct counts: many values tie at the threshold.
        let counts = texts.indices.map { _ in Int32(Int.random(in: 0...4, using: &rng)) }
        let candidates = texts.indices.filter { counts[$0] > 0 }.map(Int32.init)
        for limit in [1, 5, 20, 399, 400] {
            func ordered(_ numbers: [Int32]) -> [String] {
                SearchEngine.ordered(
                    numbers.map { FacetValue(value: texts[Int($0)], count: Int(counts[Int($0)]), selected: false) },
                    selected: [], limit: limit, counted: candidates.count
                ).values.map(\.value)
            }
            let shown = SearchEngine.firstShown(
                candidates[...], of: CountColumn(counts), labels: labels, limit: limit, keepsAll: false)
            #expect(shown.count == min(limit, candidates.count))
            #expect(ordered(shown) == ordered(candidates), "limit \(limit)")
        }
        #expect(
            SearchEngine.firstShown(candidates[...], of: CountColumn(counts), labels: labels, limit: 5, keepsAll: true)
                == candidates)
    }
}
