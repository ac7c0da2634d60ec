import Testing

@testable import SearchSession

/// Related entities come with a direct match only when the descriptor identifies it: the picture
/// matched it, or a label is its title.
@Suite struct RelatedEntitiesTests {
    let engine = Fixtures.engine()

    func sheet(_ descriptor: Descriptor, maxDistance: Float? = nil) throws -> [QueryResult] {
        try engine.query(QueryRequest(descriptor: descriptor, limit: 20, maxDistance: maxDistance))
    }

    @Test(
        "a label that is not a match's title brings no related entities",
        arguments: [
            ["rock"],  // a tag of both Beatles albums
            ["band"],  // the Beatles' own tag: an exact tag hit, not their title
            ["abbey"],  // one match, but only a word of its title
            ["rock", "vinyl"],
        ])
    func sharedLabelsBringNothingRelated(labels: [String]) throws {
        let results = try sheet(Descriptor(labels: labels.map { Label($0) }))
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.match != .related && $0.relatedTo == nil }, "\(results.map(\.entity.id))")
    }

    @Test("a label that is a match's title brings its related entities after it")
    func titleLabelBringsRelated() throws {
        let results = try sheet(Descriptor(labels: [Label("let it be"), Label("rock")]))
        #expect(results.first?.entity.id == "let-it-be")
        let related = results.filter { $0.match == .related }
        #expect(related.map(\.entity.id) == ["the-beatles", "beatles-berlin"])
        #expect(related.allSatisfy { $0.relatedTo == EntityRef(type: "album", id: "let-it-be") })
        // Abbey Road, the other rock album, matched only "rock": it brings nothing of its own.
        #expect(results.contains { $0.entity.id == "abbey-road" && $0.match == .text })
    }

    @Test("a picture match brings its related entities")
    func imageMatchBringsRelated() throws {
        let print = FeaturePrint(model: "m3", values: [1, 0.05, 0])
        let results = try sheet(Descriptor(featurePrint: print), maxDistance: 0.1)
        #expect(results.first?.entity.id == "abbey-road")
        #expect(results.first?.match == .image)
        #expect(results.contains { $0.entity.id == "the-beatles" && $0.match == .related })
    }
}
