import Foundation
import Testing

@testable import SearchSession

@Suite struct DemoCatalogTests {
    static var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/demo/catalog.jsonl").path
    }

    @Test func theDemoCatalogLoadsCleanly() throws {
        let file = try CatalogLoader.load(path: Self.path)
        #expect(file.errors.isEmpty)
        #expect(file.entities.count >= 300)
        #expect(Set(file.entities.map(\.type)) == ["album", "artist", "concert", "track", "playlist"])
        #expect(file.synonyms.count >= 3)
        let engine = SearchEngine(catalog: file)
        // Every related link points at an entity of the catalog.
        for e in file.entities { for r in e.related { #expect(engine.snapshot.entity(r) != nil, "\(e.ref) → \(r)") } }
    }

    @Test func anAlbumQuerySurfacesItsArtistAndUpcomingConcertsInGerman() throws {
        let file = try CatalogLoader.load(path: Self.path)
        let engine = SearchEngine(catalog: file, nowMs: { 1_764_460_800_000 })  // 2025-11-30
        let album = try #require(
            file.entities.first { e in
                e.type == "album"
                    && file.entities.first { $0.ref == e.related[0] }!.related.contains { $0.type == "concert" }
            })
        let results = try engine.query(
            QueryRequest(descriptor: Descriptor(labels: [Label(album.title)], locale: "de-DE")))
        #expect(results.first?.entity == album.ref)
        #expect(results.first?.title == album.localized["de"]?.title)
        #expect(results.contains { $0.entity.type == "artist" && $0.match == .related })
        #expect(results.contains { $0.entity.type == "concert" && $0.match == .related })
    }

    @Test func synonymsFromTheFileWork() throws {
        let engine = SearchEngine(catalog: try CatalogLoader.load(path: Self.path))
        let gig = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("gig")]), limit: 20))
        #expect(gig.count == 20)
        #expect(gig.filter { $0.match != .related }.allSatisfy { $0.entity.type == "concert" })
    }
}
