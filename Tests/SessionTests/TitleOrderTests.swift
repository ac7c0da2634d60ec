import Foundation
import Testing

@testable import SearchSession

/// A title sort chooses each segment's finalists by title place and reads only their keys: the
/// same hits, in the same order, as sorting every hit by its key's bytes.
@Suite struct TitleOrderTests {
    /// Titles that share prefixes, differ only in case or accents, repeat, or are empty; some
    /// entities carry a German title.
    static func entities(_ n: Int, seed: UInt64, idPrefix: String) -> [Entity] {
        var rng = SplitMix64(state: seed)
        let words = ["ab", "Ab", "abc", "Éclair", "eclair", "zeta", "Z", "", "ab c", "Ab-C", "ärger", "10", "9"]
        return (0..<n).map { i in
            let title = (0..<Int.random(in: 1...2, using: &rng)).map { _ in words.randomElement(using: &rng)! }
                .joined(separator: " ")
            var localized = [String: LocalizedText]()
            if Int.random(in: 0..<4, using: &rng) == 0 {
                localized["de"] = LocalizedText(title: words.randomElement(using: &rng)! + " de", subtitle: "")
            }
            return Entity(type: "album", id: "\(idPrefix)\(i)", title: title, localized: localized)
        }
    }

    /// A snapshot of a mapped segment file (titles read by `pread`), with deletes, and a segment
    /// in memory after it.
    static func snapshot(in directory: String) throws -> CatalogSnapshot {
        let analyzer = Analyzer(synonyms: [])
        let built = Segment(entities: entities(300, seed: 3, idPrefix: "a"), analyzer: analyzer)
        let path = directory + "/mapped.seg"
        try built.region.write(to: path)
        let mapped = try Segment(ByteRegion.map(path: path), residentStringBytes: 0)
        #expect(mapped.region.isMapped && mapped.readsStringsWithCopies)
        let memory = Segment(entities: entities(120, seed: 4, idPrefix: "b"), analyzer: analyzer)
        var deletes = DeleteSet(documents: mapped.count)
        for doc in stride(from: 0, to: mapped.count, by: 7) { _ = deletes.insert(doc) }
        return CatalogSnapshot(
            version: 1, generation: 1, synonyms: [], analyzer: analyzer, segments: [mapped, memory],
            deletes: [deletes, DeleteSet(documents: memory.count)])
    }

    /// Every hit's key read and compared, the order the finalists must reproduce.
    static func sortedByReadingEveryKey(
        _ hits: [Candidate], in snapshot: CatalogSnapshot, locale: String, descending: Bool
    ) -> [Candidate] {
        let keys = hits.map { hit -> [UInt8] in
            let (s, local) = snapshot.locate(hit.doc)
            let entity = snapshot.segments[s].entity(local)
            let title = locale.isEmpty || entity.localized.isEmpty ? entity.title : entity.display(locale: locale).title
            return Array(Analyzer.tokens(title).joined(separator: " ").utf8)
        }
        return hits.indices.sorted { a, b in
            if keys[a] != keys[b] {
                let below = keys[a].lexicographicallyPrecedes(keys[b])
                return descending ? !below : below
            }
            return a < b
        }.map { hits[$0] }
    }

    @Test func finalistsOrderAsEveryKeyRead() throws {
        let directory = NSTemporaryDirectory() + "vi-continue-title-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let snapshot = try Self.snapshot(in: directory)
        let live = snapshot.liveDocs()
        var rng = SplitMix64(state: 11)
        for round in 0..<40 {
            // Every live document, or a random part of them, in document order.
            let hits = live.filter { _ in round % 4 == 0 || Int.random(in: 0..<3, using: &rng) == 0 }
                .map { Candidate(everything: $0) }
            for locale in ["", "de"] {
                for descending in [false, true] {
                    let expected = Self.sortedByReadingEveryKey(
                        hits, in: snapshot, locale: locale, descending: descending)
                    for limit in [1, 3, 20, hits.count] {
                        let top = TitleOrder.top(hits, limit, in: snapshot, locale: locale, descending: descending)
                        #expect(
                            top.map(\.doc) == expected.prefix(limit).map(\.doc),
                            "round \(round) locale \(locale) descending \(descending) limit \(limit)")
                    }
                }
            }
        }
    }

    /// Both ways of reading a mapped segment's strings: through the mapping (a small segment)
    /// and with `pread` (a large one).
    @Test(arguments: [Segment.residentStringBytes, 0])
    func aMappedSegmentReadsItsStringsAsTheSegmentItWasWrittenFrom(residentStringBytes: Int) throws {
        let directory = NSTemporaryDirectory() + "vi-continue-strings-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entities = Self.entities(200, seed: 9, idPrefix: "m")
        let built = Segment(entities: entities, analyzer: Analyzer(synonyms: []))
        try built.region.write(to: directory + "/strings.seg")
        let mapped = try Segment(
            ByteRegion.map(path: directory + "/strings.seg"), residentStringBytes: residentStringBytes)
        #expect(mapped.readsStringsWithCopies == (residentStringBytes == 0))
        for doc in 0..<mapped.count {
            #expect(mapped.entity(doc) == built.entity(doc))
            #expect(mapped.doc(of: EntityRef(type: "album", id: "m\(doc)")) == doc)
        }
        // Places follow the sort keys: equal keys share one, a larger key has a larger one.
        for a in 0..<built.count {
            for b in 0..<built.count where a < b {
                let (x, y) = (built.docTitleSortKey[a], built.docTitleSortKey[b])
                let keys = (built.withBytes(of: x) { Array($0) }, built.withBytes(of: y) { Array($0) })
                let places = (mapped.docTitleRank[a], mapped.docTitleRank[b])
                #expect((keys.0 == keys.1) == (places.0 == places.1))
                #expect(keys.0.lexicographicallyPrecedes(keys.1) == (places.0 < places.1))
            }
        }
    }
}
