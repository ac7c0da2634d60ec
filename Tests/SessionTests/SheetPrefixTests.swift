import Foundation
import Testing

@testable import SearchSession

/// The sheet for a smaller limit is a prefix of the sheet for a larger one: related entities fill
/// later slots and never displace their parent or the best direct match.
@Suite struct SheetPrefixTests {
    static let engine: SearchEngine = {
        let file = try! CatalogLoader.load(path: DemoCatalogTests.path)
        return SearchEngine(catalog: file, nowMs: { 1_790_000_000_000 })
    }()

    static func sheet(_ labels: [String], limit: Int) throws -> [QueryResult] {
        try engine.query(
            QueryRequest(
                descriptor: Descriptor(labels: labels.map { Label($0, confidence: 0.9) }, source: .camera), limit: limit
            ))
    }

    @Test("the best direct match comes first at every limit, even at 1")
    func bestDirectMatchFirst() throws {
        for limit in [1, 2, 3, 10] {
            let lost = try Self.sheet(["lost letters"], limit: limit)
            #expect(lost.first?.entity == EntityRef(type: "album", id: "lost-letters"), "limit \(limit)")
            let jazz = try Self.sheet(["jazz"], limit: limit)
            #expect(jazz.first?.title == "Jazz Essentials", "limit \(limit): \(jazz.map(\.title))")
            #expect(jazz.first?.match != .related)
        }
    }

    @Test("over random descriptors and limits, every sheet is a prefix of the longest")
    func prefixProperty() throws {
        let file = try CatalogLoader.load(path: DemoCatalogTests.path)
        var vocabulary = Set<String>()
        for entity in file.entities {
            vocabulary.formUnion(entity.tags)
            vocabulary.formUnion(entity.title.lowercased().split(separator: " ").map(String.init))
        }
        let words = vocabulary.sorted()
        // Whole titles too, a third of the time: a label that is a title brings related entities.
        let titles = file.entities.map(\.title).sorted()
        var random = SplitMix64(state: 0x5EED)
        var checked = 0
        var withRelated = 0
        for _ in 0..<300 {
            let labels = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                Int.random(in: 0..<3, using: &random) == 0
                    ? titles[Int.random(in: 0..<titles.count, using: &random)]
                    : words[Int.random(in: 0..<words.count, using: &random)]
            }
            let longest = try Self.sheet(labels, limit: QueryRequest.maximumLimit)
            if longest.contains(where: { $0.match == .related }) { withRelated += 1 }
            for _ in 0..<3 {
                let limit = Int.random(in: 1...QueryRequest.maximumLimit, using: &random)
                let sheet = try Self.sheet(labels, limit: limit).map(\.entity)
                #expect(sheet == Array(longest.prefix(limit).map(\.entity)), "\(labels) limit \(limit)")
                checked += 1
            }
        }
        #expect(checked == 900)
        #expect(withRelated >= 50, "only \(withRelated) of 300 sheets had related entities")
    }
}
