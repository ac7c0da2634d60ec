import Foundation
import Testing

@testable import SearchSession

/// A large mapped segment's postings are read with `pread` into copies a search holds: every
/// list, its frequencies, every exact phrase's list and a search's answers are those of the
/// segment it was written from.
@Suite struct PostingReadsTests {
    @Test(arguments: [Segment.residentPostingBytes, 0])
    func aMappedSegmentReadsItsPostingsAsTheSegmentItWasWrittenFrom(residentPostingBytes: Int) throws {
        let directory = NSTemporaryDirectory() + "vi-continue-postings-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let analyzer = Analyzer(synonyms: [])
        // Tags for exact phrases: one on half the entities (its list is bits), others on few.
        var entities = RandomCatalog.entities(3_000, seed: 11)
        for index in entities.indices { entities[index].tags = index % 2 == 0 ? ["vinyl"] : ["tape \(index % 40)"] }
        let built = Segment(entities: entities, analyzer: analyzer)
        try built.region.write(to: directory + "/postings.seg")
        let mapped = try Segment(
            ByteRegion.map(path: directory + "/postings.seg"), residentPostingBytes: residentPostingBytes)
        #expect(mapped.readsPostingsWithCopies == (residentPostingBytes == 0))

        let reads = PostingReads()
        defer { reads.release() }
        var kinds = Set<Bool>()
        for number in 0..<(built.postingStart.count - 1) {
            let (expected, got) = (built.postings(number, reads: reads), mapped.postings(number, reads: reads))
            var expectedDocs = [UInt32]()
            var gotDocs = [UInt32]()
            expected.docs.forEach { doc, _ in expectedDocs.append(doc) }
            got.docs.forEach { doc, _ in gotDocs.append(doc) }
            #expect(gotDocs == expectedDocs, "term \(number)")
            #expect((got.docs.probe != nil) == (expected.docs.probe != nil))
            kinds.insert(got.docs.probe != nil)
            #expect(got.frequencies.count == expected.frequencies.count)
            for position in 0..<expected.frequencies.count {
                #expect(got.frequencies[position] == expected.frequencies[position])
            }
            #expect(got.docs.contains(each: expectedDocs.filter { $0 % 3 == 0 }).allSatisfy { $0 })
        }
        #expect(kinds == [true, false], "both lists of gaps and lists as bits were read")
        var phraseKinds = Set<Bool>()
        for place in 0..<built.phraseHashes.count {
            let (expected, got) = (built.phraseDocs(place, reads: reads), mapped.phraseDocs(place, reads: reads))
            var expectedDocs = [UInt32]()
            var gotDocs = [UInt32]()
            expected.forEach { doc, _ in expectedDocs.append(doc) }
            got.forEach { doc, _ in gotDocs.append(doc) }
            #expect(gotDocs == expectedDocs, "phrase \(place)")
            phraseKinds.insert(got.probe != nil)
        }
        #expect(phraseKinds == [true, false], "both exact phrases' gaps and bits were read")

        // A search of every term pair over the mapped segment answers as over the built one.
        func snapshot(_ segment: Segment) -> CatalogSnapshot {
            CatalogSnapshot(
                version: 1, generation: 1, synonyms: [], analyzer: analyzer, segments: [segment],
                deletes: [DeleteSet(documents: segment.count)])
        }
        let (fromBuilt, fromMapped) = (snapshot(built), snapshot(mapped))
        let words = ["red", "blue", "item", "live", "song"]
        for first in words {
            #expect(TextIndex.liveDocs(first, in: fromMapped) == TextIndex.liveDocs(first, in: fromBuilt))
            for second in words where second != first {
                let groups = [(terms: [first], weight: Float(1)), (terms: [second], weight: Float(1))]
                let (expected, got) = (
                    TextIndex.matchEvery(groups, in: fromBuilt), TextIndex.matchEvery(groups, in: fromMapped)
                )
                #expect(got.docs == expected.docs && got.scores == expected.scores, "\(first) \(second)")
            }
        }
    }
}
