import Foundation
import Testing

@testable import SearchSession

/// A merge adds its sources' documents by number (``SegmentBuilder/add(_:of:numbers:)``) instead
/// of reading each back as an entity: the segment it builds must be the one the entities would
/// have built, byte for byte, whatever the documents hold.
@Suite struct SegmentMergeCopyTests {
    static let analyzer = Analyzer(synonyms: [])

    /// Entities of every shape a catalog line can have: empty and non-ASCII strings, categories
    /// of one to three levels or none, tags or none, string and number attributes (integers,
    /// fractions, negatives) or none, localized text, related references, prints of two models
    /// (one with a dimension of its own) or none.
    static func entities(_ count: Int, seed: UInt64, idPrefix: String) -> [Entity] {
        var rng = SplitMix64(state: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
        let words = ["red", "Øresund", "kitchen", "naïve", "東京", "steel", "blue", "linen", "C++", "café"]
        let categories = ["", "Home", "Home/Kitchen", "Home/Kitchen/Knife", "Art/Print", "Ünïcode/Ω"]
        return (0..<count).map { n in
            var entity = Entity(
                type: pick(["product", "book", "place", "brand"]), id: "\(idPrefix)\(n)",
                title: (0..<Int(1 + rng.next() % 5)).map { _ in pick(words) }.joined(separator: " "))
            if chance(60) {
                entity.subtitle = (0..<Int(rng.next() % 12)).map { _ in pick(words) }.joined(separator: " ")
            }
            entity.category = pick(categories)
            entity.tags = (0..<Int(rng.next() % 4)).map { _ in pick(words + ["WiFi", "wifi"]) }
            if chance(70) {
                entity.attributes["colour"] = .string(pick(["red", "blue", "grün", ""]))
                entity.attributes["price"] = .number(Double(rng.next() % 1000) / pick([1, 4, 100]))
            }
            if chance(40) { entity.attributes["year"] = .number(Double(1900 + Int(rng.next() % 130))) }
            if chance(20) { entity.attributes["offset"] = .number(-Double(rng.next() % 50) - 0.5) }
            if chance(30) { entity.attributes["maker \(rng.next() % 3)"] = .string("m\(rng.next() % 7)") }
            if chance(50) { entity.imageURL = "https://img.example/\(n).jpg" }
            if chance(30) { entity.thumbnailURL = "https://img.example/\(n)-t.jpg" }
            if chance(50) { entity.link = "app://item/\(idPrefix)\(n)" }
            if chance(30) {
                entity.localized["de"] = LocalizedText(title: "Titel \(n)", subtitle: chance(50) ? "" : "Ä")
            }
            if chance(20) { entity.localized["ja"] = LocalizedText(title: "題 \(n)", subtitle: "説明") }
            if chance(30) {
                entity.related = (0..<Int(1 + rng.next() % 2)).map { _ in
                    EntityRef(type: "brand", id: "b\(rng.next() % 5)")
                }
            }
            if chance(40) {
                entity.prints.append(
                    FeaturePrint(model: "scene", values: (0..<8).map { _ in Float(rng.next() % 100) + 1 }))
            }
            if chance(25) {
                entity.prints.append(
                    FeaturePrint(model: "alpha", values: (0..<4).map { _ in Float(rng.next() % 9) + 1 }))
            }
            return entity
        }
    }

    /// The bytes of what `add` builds.
    static func built(_ add: (inout SegmentBuilder) -> Void) -> [UInt8] {
        var builder = SegmentBuilder()
        add(&builder)
        let region = builder.finish(analyzer: analyzer)
        return region.bytes(at: 0, count: region.count)
    }

    /// The bytes of a merge of `sources` (every `skip`th document left out, as deleted) made
    /// from entities, and made by number.
    static func bothWays(_ sources: [Segment], skip: Int) -> (entities: [UInt8], numbers: [UInt8]) {
        let kept = { (doc: Int) in doc % skip != skip - 1 }
        let fromEntities = built { builder in
            for segment in sources {
                for doc in 0..<segment.count where kept(doc) { builder.addReadBack(doc, of: segment) }
            }
        }
        let byNumber = built { builder in
            for segment in sources {
                var numbers = SegmentBuilder.SourceNumbers(segment)
                for doc in 0..<segment.count where kept(doc) { builder.add(doc, of: segment, numbers: &numbers) }
            }
        }
        return (fromEntities, byNumber)
    }

    @Test("a merge by number builds the bytes the entities build, from segments in memory and mapped")
    func sameBytesAsFromEntities() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merge-copy-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var sources = (0..<3).map {
            Segment(entities: Self.entities(150, seed: UInt64(40 + $0), idPrefix: "s\($0)-"), analyzer: Self.analyzer)
        }
        // One source mapped from a file and read with `pread`, as a large persisted segment is.
        var builder = SegmentBuilder()
        for entity in Self.entities(120, seed: 77, idPrefix: "m-") { builder.add(entity) }
        let path = directory + "/mapped.seg"
        try builder.finish(analyzer: Self.analyzer).write(to: path)
        sources.append(try Segment(ByteRegion.map(path: path), residentStringBytes: 0))
        #expect(sources[3].readsStringsWithCopies)
        for skip in [1_000, 3] {
            let (fromEntities, byNumber) = Self.bothWays(sources, skip: skip)
            #expect(fromEntities.count > 10_000)
            #expect(fromEntities == byNumber, "every \(skip)th document deleted")
        }
    }

    @Test("a segment merged by number merges by number again to the same bytes, with empty documents")
    func mergedAgain() throws {
        let first = Segment(entities: Self.entities(200, seed: 5, idPrefix: "a"), analyzer: Self.analyzer)
        var numbers = SegmentBuilder.SourceNumbers(first)
        var builder = SegmentBuilder()
        for doc in stride(from: 0, to: first.count, by: 2) { builder.add(doc, of: first, numbers: &numbers) }
        let merged = try Segment(builder.finish(analyzer: Self.analyzer))
        // Documents with nothing but a type and an id: no string run beyond the id.
        let bare = Segment(
            entities: (0..<5).map { Entity(type: "tag-only", id: "bare\($0)", title: "") }, analyzer: Self.analyzer)
        let (fromEntities, byNumber) = Self.bothWays([merged, bare, first], skip: 4)
        #expect(fromEntities == byNumber)
        // And what it holds reads back as the entities it was made from (prints within a
        // float's rounding: a print is made a unit vector again whenever it is added).
        for doc in 0..<merged.count {
            var (mergedEntity, entity) = (merged.entity(doc), first.entity(2 * doc))
            #expect(mergedEntity.prints.map(\.model) == entity.prints.map(\.model))
            for (a, b) in zip(mergedEntity.prints, entity.prints) {
                #expect(zip(a.values, b.values).allSatisfy { abs($0 - $1) < 1e-5 })
            }
            (mergedEntity.prints, entity.prints) = ([], [])
            #expect(mergedEntity == entity)
        }
    }
}
