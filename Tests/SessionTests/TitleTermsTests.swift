import Synchronization
import Testing

@testable import SearchSession

/// The titles the sheet compares labels with are analyzed once per snapshot and kept: what is
/// kept must be what analyzing gives, also after the cache fills and starts again.
@Suite struct TitleTermsTests {
    @Test func keptTitleTermsAreTheAnalyzedTitles() {
        let count = CatalogSnapshot.titleTermsKept + 10
        let entities = (0..<count).map { i in
            Entity(type: "album", id: "a\(i)", title: "Blue Knives \(i) Éclair", category: "Music/Jazz")
        }
        let snapshot = CatalogSnapshot(version: 1, entities: entities, synonyms: [["blue", "azure"]])
        for round in 0..<2 {
            for doc in stride(from: Int32(0), to: Int32(count), by: 1) {
                let expected = snapshot.analyzer.terms("Blue Knives \(doc) Éclair")
                #expect(snapshot.titleTerms(of: doc) == expected, "round \(round), document \(doc)")
            }
            #expect(snapshot.titleTermsCache.withLock { $0.count } <= CatalogSnapshot.titleTermsKept)
        }
        snapshot.dropDerived()
        #expect(snapshot.titleTermsCache.withLock { $0.isEmpty })
    }
}
