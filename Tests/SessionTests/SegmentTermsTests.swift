import Synchronization
import Testing

@testable import SearchSession

/// A snapshot's terms and phrases, numbered once per snapshot (``CatalogSnapshot/terms(_:)``,
/// ``CatalogSnapshot/phrases(_:)``), against each segment's own lookup.
@Suite struct SegmentTermsTests {
    /// The catalog and five upserts: six segments (fewer than a merge takes), the third upsert
    /// replacing an entity of the catalog, so its first segment has a deleted document.
    static func engine() throws -> SearchEngine {
        let engine = SearchEngine(entities: [
            Entity(type: "t", id: "a", title: "Red Guitar", tags: ["guitar", "red guitar"]),
            Entity(type: "t", id: "b", title: "Blue Drum", tags: ["drum"]),
            Entity(type: "t", id: "c", title: "Guitar", tags: ["vintage"]),
        ])
        try engine.upsert([Entity(type: "t", id: "d", title: "Red Drum", tags: ["red guitar"])])
        try engine.upsert([Entity(type: "t", id: "e", title: "Green Flute")])
        try engine.upsert([Entity(type: "t", id: "a", title: "Red Guitar Case", tags: ["guitar"])])
        try engine.upsert([Entity(type: "t", id: "f", title: "Guitar", tags: ["drum"])])
        try engine.upsert([Entity(type: "t", id: "g", title: "Piano")])
        return engine
    }

    @Test func termsTakenOverFromTheSnapshotBeforeAWriteAreTheSnapshotsOwn() throws {
        let engine = try Self.engine()
        let before = engine.snapshot
        let terms = ["guitar", "red", "drum", "flute", "piano", "case", "vintage", "harp", "absent"]
        // Numbered on the snapshot before the write, all but one ("vintage" left to look up).
        for term in terms where term != "vintage" { _ = before.terms(TermKey(term)) }
        // The write's own snapshot, made from the one before it as a write makes it: the engine's
        // current snapshot may already have a merge on it (the first segment rewritten without
        // the documents the write replaced, by the merge lane), which the write never sees.
        let after = before.applying(
            .upsert([
                Entity(type: "t", id: "h", title: "Harp", tags: ["red guitar"]),
                Entity(type: "t", id: "b", title: "Blue Drum Kit"),
            ]), version: before.version + 1, generation: before.generation + 1
        ).0
        #expect(after.segments.count == before.segments.count + 1)
        for term in terms {
            let fresh = CatalogSnapshot(
                version: after.version, generation: after.generation, synonyms: after.synonyms,
                analyzer: after.analyzer, segments: after.segments, deletes: after.deletes
            ).terms(TermKey(term))
            let taken = after.terms(TermKey(term), after: before)
            #expect(taken.numbers == fresh.numbers, "\(term)")
            #expect(taken.documentFrequency == fresh.documentFrequency, "\(term)")
        }
    }

    @Test func termsAreEachSegmentsOwnNumbers() throws {
        let snapshot = try Self.engine().snapshot
        #expect(snapshot.segments.count == 6)
        for term in ["guitar", "red", "drum", "flute", "piano", "case", "vintage", "absent"] {
            let numbered = snapshot.terms(TermKey(term))
            let expected = snapshot.segments.map { Int32($0.term(term) ?? -1) }
            #expect(numbered.numbers == expected, "\(term)")
            let postings = snapshot.segments.reduce(0) { total, segment in
                total + (segment.term(term).map { segment.postingCount($0) } ?? 0)
            }
            #expect(numbered.documentFrequency == postings, "\(term)")
            // Asked again, the kept answer is the same.
            #expect(snapshot.terms(TermKey(term)).numbers == expected)
        }
        // "guitar" is in the catalog's segment and three upserts' (a tag of d), a deleted document included.
        #expect(snapshot.terms(TermKey("guitar")).numbers.filter { $0 >= 0 }.count == 4)
        #expect(TextIndex.documentFrequency("guitar", in: snapshot) == 5)
    }

    @Test func phrasesAreEachSegmentsOwnLists() throws {
        let snapshot = try Self.engine().snapshot
        for phrase in [["red", "guitar"], ["guitar"], ["drum"], ["piano"], ["absent"]] {
            let hash = Segment.hash(phrase: phrase)
            let found = snapshot.phrases(hash)
            let expected = snapshot.segments.indices.filter { snapshot.segments[$0].phrase(hash: hash) != nil }
            #expect(found.map(\.segment) == expected, "\(phrase)")
            for entry in found {
                #expect(entry.phrase == snapshot.segments[entry.segment].phrase(hash: hash))
            }
        }
        // Live documents whose title or a tag is exactly "red guitar": a (its first version is
        // deleted, the new one has no such tag or title) no longer, d by its tag.
        let refs = TextIndex.exactMatches(["red", "guitar"], in: snapshot).map { snapshot.entity(at: $0).id }
        #expect(refs == ["d"])
        #expect(TextIndex.exactMatches(["guitar"], in: snapshot).map { snapshot.entity(at: $0).id } == ["c", "a", "f"])
    }

    @Test func aWriteNumbersTermsInItsNewSnapshot() throws {
        let engine = try Self.engine()
        let before = engine.snapshot
        #expect(before.terms(TermKey("harp")).documentFrequency == 0)
        try engine.upsert([Entity(type: "t", id: "h", title: "Harp")])
        let after = engine.snapshot
        #expect(after.terms(TermKey("harp")).documentFrequency == 1)
        #expect(after.terms(TermKey("harp")).numbers.last.map { $0 >= 0 } == true)
        // The replaced snapshot keeps its own answer.
        #expect(before.terms(TermKey("harp")).documentFrequency == 0)
    }

    @Test func theKeptTermsStartAgainPastTheirBound() throws {
        let snapshot = try Self.engine().snapshot
        for n in 0...CatalogSnapshot.termsKept {
            _ = snapshot.terms(TermKey("absent\(n)"))
        }
        #expect(snapshot.termsCache.withLock { $0.count } <= CatalogSnapshot.termsKept)
        #expect(snapshot.terms(TermKey("guitar")).documentFrequency == 5)
    }
}
