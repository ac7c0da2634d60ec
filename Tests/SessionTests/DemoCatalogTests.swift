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

    static var directory: String { (path as NSString).deletingLastPathComponent }

    /// The demo photos, each with the id of the album whose cover it shows (`<album-id>--<what>.jpg`).
    static func photos() throws -> [(file: String, album: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory + "/photos")
        return names.filter { $0.hasSuffix(".jpg") }.sorted().map { name in
            (file: directory + "/photos/" + name, album: String(name.split(separator: "--")[0]))
        }
    }

    @Test func everyAlbumHasADistinctCoverImage() throws {
        let file = try CatalogLoader.load(path: Self.path)
        let printed = file.entities.filter { $0.prints.contains { $0.model == FeaturePrinter.model } }
        #expect(printed.count >= 100)
        #expect(file.entities.filter { $0.type == "album" }.allSatisfy { e in printed.contains { $0.ref == e.ref } })
        // No two covers are near duplicates: each one's nearest other cover is farther than a
        // third of the default match distance (a JPEG re-encoding moves a print far less).
        let vectors = printed.map { e in e.prints.first { $0.model == FeaturePrinter.model }!.values }
        for (i, a) in vectors.enumerated() {
            var nearest: Float = 2
            for (j, b) in vectors.enumerated() where j != i { nearest = min(nearest, Self.distance(a, b)) }
            #expect(nearest > FeaturePrinter.defaultMaxDistance / 3, "\(printed[i].ref) has a near twin")
        }
    }

    /// Demo photos that ImageMatchRule leaves unanswered, and why (bench/quality/README.md):
    /// the corner of Hidden Voices shows two plain discs on a gradient, where no keypoint
    /// survives (0 inliers) and whose print lies at 0.104, twice the demo catalog's strict
    /// distance (0.4 × its median gap of 0.134); the brightened crop of Lost Horizon lies at
    /// 0.055, just past 0.054, with too few inliers. Unknown pictures come as close as 0.06 on the test
    /// families, so the rule answers these empty rather than risk a wrong cover.
    static let photosBeyondTheRule: Set<String> = ["hidden-voices--corner.jpg", "lost-horizon--bright-cropped.jpg"]

    @Test func everyDemoPhotoFindsTheCoverItShowsOrNothing() throws {
        let file = try CatalogLoader.load(path: Self.path)
        let engine = SearchEngine(catalog: file)
        let photos = try Self.photos()
        #expect(photos.count >= 10)
        for photo in photos {
            #expect(file.entities.contains { $0.type == "album" && $0.id == photo.album }, "\(photo.file)")
            let pixels = try ImageDecoder.decode(path: photo.file)
            let results = try engine.query(QueryRequest(descriptor: Descriptor(pixelBuffer: pixels)))
            let best = results.first { $0.match == .image }
            let name = String(photo.file.split(separator: "/").last!)
            if Self.photosBeyondTheRule.contains(name) {
                #expect(best == nil, "\(photo.file): \(results.prefix(3))")
            } else {
                #expect(
                    best?.entity == EntityRef(type: "album", id: photo.album), "\(photo.file): \(results.prefix(3))")
            }
        }
    }

    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        var dot: Float = 0
        for i in a.indices { dot += a[i] * b[i] }
        return 1 - dot
    }
}
