import Testing

@testable import SearchSession

@Suite struct QueryTests {
    let engine = Fixtures.engine()

    @Test func labelsReturnAUnionOfTypesWithSynonyms() throws {
        let results = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("axes")])))
        // "axes" stems to "ax", not "axe": the plural rule is simple. The singular finds both.
        #expect(results.isEmpty)
        let singular = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("Axe")])))
        #expect(Set(singular.map(\.entity.type)) == ["track", "playlist"])
        #expect(singular.first?.entity.id == "guitar-solo")  // exact tag hit (synonym) first
        #expect(singular.allSatisfy { $0.match == .text && $0.matchedTerms == ["Axe"] })
    }

    @Test func aSingularLabelFindsIrregularPluralsAndBack() throws {
        let engine = SearchEngine(entities: [
            Entity(type: "product", id: "block", title: "Knives Block", category: "Kitchen/Knives"),
            Entity(type: "product", id: "shelf", title: "Oak Shelf", tags: ["children"]),
        ])
        let knife = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("knife")])))
        #expect(knife.map(\.entity.id) == ["block"])
        let shelves = try engine.query(
            QueryRequest(descriptor: Descriptor(labels: [Label("Shelves"), Label("child")])))
        #expect(shelves.map(\.entity.id) == ["shelf"])
        #expect(shelves.first?.matchedTerms == ["Shelves", "child"])
    }

    @Test func anAlbumBringsItsArtistAndTheArtistsUpcomingConcerts() throws {
        let results = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("abbey road")])))
        #expect(results.map(\.entity.id) == ["abbey-road", "the-beatles", "beatles-berlin"])
        #expect(results[1].match == .related)
        #expect(results[1].relatedTo == EntityRef(type: "album", id: "abbey-road"))
        #expect(results[2].relatedTo == EntityRef(type: "album", id: "abbey-road"))
        // The 1966 concert is past: not surfaced.
        #expect(!results.contains { $0.entity.id == "beatles-1966" })
        #expect(results.allSatisfy { !$0.thumbnailURL.isEmpty || $0.entity.id != "abbey-road" })
        #expect(results.allSatisfy { $0.imageURL.isEmpty })
    }

    @Test func exactlyOneResultCarriesTheFullImageAndLocalizedText() throws {
        let only = SearchEngine(entities: [
            Entity(
                type: "album", id: "a", title: "Abbey Road", imageURL: "full.jpg", thumbnailURL: "thumb.jpg",
                localized: ["de": LocalizedText(title: "Abbey Straße", subtitle: "")])
        ])
        let results = try only.query(
            QueryRequest(descriptor: Descriptor(labels: [Label("abbey")], locale: "de-DE")))
        #expect(results.count == 1)
        #expect(results[0].imageURL == "full.jpg")
        #expect(results[0].thumbnailURL == "")
        #expect(results[0].title == "Abbey Straße")
    }

    @Test func nothingWithinThresholdIsEmpty() throws {
        #expect(try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("tuba")]))).isEmpty)
        let far = FeaturePrint(model: "m3", values: [0, 1, 0])
        #expect(
            try engine.query(QueryRequest(descriptor: Descriptor(featurePrint: far), maxDistance: 0.5)).isEmpty)
        #expect(try engine.query(QueryRequest(descriptor: Descriptor())).isEmpty)
    }

    @Test func clientPrintsMatchTheirModelWithinTheDistanceBestFirst() throws {
        let p = FeaturePrint(model: "m3", values: [1, 0.05, 0])
        let results = try engine.query(QueryRequest(descriptor: Descriptor(featurePrint: p), maxDistance: 0.1))
        let primaries = results.filter { $0.match != .related }
        #expect(primaries.map(\.entity.id) == ["abbey-road", "let-it-be"])
        #expect(primaries.allSatisfy { $0.match == .image && ($0.distance ?? 1) <= 0.1 })
        #expect(primaries[0].distance! < primaries[1].distance!)
        let otherModel = FeaturePrint(model: "other", values: [1, 0, 0])
        #expect(try engine.query(QueryRequest(descriptor: Descriptor(featurePrint: otherModel))).isEmpty)
    }

    @Test func labelsAndPrintsFuse() throws {
        let p = FeaturePrint(model: "m3", values: [0, 0, 1])
        let results = try engine.query(
            QueryRequest(descriptor: Descriptor(labels: [Label("jazz")], featurePrint: p), maxDistance: 0.05))
        #expect(results.first?.entity.id == "kind-of-blue")
        #expect(results.first?.match == .textAndImage)
    }

    @Test func theLimitDefaultsToTenAndCapsAtTwenty() throws {
        let many = SearchEngine(entities: (0..<30).map { Entity(type: "t", id: "e\($0)", title: "Song \($0)") })
        let label = Descriptor(labels: [Label("song")])
        #expect(try many.query(QueryRequest(descriptor: label)).count == 10)
        #expect(try many.query(QueryRequest(descriptor: label, limit: 50)).count == 20)
        #expect(try many.query(QueryRequest(descriptor: label, limit: 3)).count == 3)
    }

    static let malformed: [(String, Descriptor, String)] = [
        (
            "zero width",
            Descriptor(
                pixelBuffer: PixelBuffer(width: 0, height: 1, bytesPerRow: 4, format: .rgba8, bytes: [0, 0, 0, 0])),
            "pixel buffer dimensions 0×1 must be at least 1×1"
        ),
        (
            "huge",
            Descriptor(
                pixelBuffer: PixelBuffer(width: 20_000, height: 1, bytesPerRow: 80_000, format: .rgba8, bytes: [])),
            "pixel buffer dimensions 20000×1 exceed 16384 per side"
        ),
        (
            "short rows",
            Descriptor(
                pixelBuffer: PixelBuffer(
                    width: 2, height: 2, bytesPerRow: 5, format: .rgb8, bytes: [UInt8](repeating: 0, count: 12))),
            "bytes per row 5 is less than width × 3 = 6"
        ),
        (
            "short data",
            Descriptor(
                pixelBuffer: PixelBuffer(
                    width: 2, height: 2, bytesPerRow: 8, format: .bgra8, bytes: [UInt8](repeating: 0, count: 15))),
            "pixel data has 15 bytes; 2×2 at 8 per row needs 16"
        ),
        (
            "NaN print", Descriptor(featurePrint: FeaturePrint(model: "m3", values: [1, .nan, 0])),
            "feature print value 1 is nan; values must be finite"
        ),
        (
            "wrong length", Descriptor(featurePrint: FeaturePrint(model: "m3", values: [1, 0])),
            "feature print of model m3 has 2 values; the model has 3"
        ),
        (
            "wrong built-in length", Descriptor(featurePrint: FeaturePrint(model: "vi-feature-v2", values: [1, 0])),
            "feature print of model vi-feature-v2 has 2 values; the model has 200"
        ),
        (
            "empty print", Descriptor(featurePrint: FeaturePrint(model: "m3", values: [])),
            "feature print of model m3 has no values"
        ),
        (
            "bad confidence", Descriptor(labels: [Label("x", confidence: 2)]),
            "label 0 (x) has confidence 2.0; it must be in [0, 1]"
        ),
    ]

    @Test(arguments: malformed)
    func malformedDescriptorsAreInvalidArguments(name: String, descriptor: Descriptor, message: String) {
        #expect(throws: SearchError(code: .invalidArgument, message: message)) {
            try engine.query(QueryRequest(descriptor: descriptor))
        }
    }

    @Test func aBadMaxDistanceOrLimitIsAnInvalidArgument() {
        #expect(throws: SearchError(code: .invalidArgument, message: "max distance -1.0 must be a finite number ≥ 0")) {
            try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("x")]), maxDistance: -1))
        }
        #expect(throws: SearchError(code: .invalidArgument, message: "limit -1 must not be negative")) {
            try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("x")]), limit: -1))
        }
    }
}
