import Testing

@testable import SearchSession

@Suite struct CatalogUpdateTests {
    @Test func upsertsAndDeletesAreVisibleToNewQueriesWithANewVersion() throws {
        let engine = Fixtures.engine()
        let v1 = engine.snapshot.version
        let update = try engine.upsert([
            Entity(type: "album", id: "revolver", title: "Revolver", tags: ["rock"]),
            Entity(type: "album", id: "abbey-road", title: "Abbey Road Remastered"),
        ])
        #expect(update == CatalogUpdate(applied: 2, catalogVersion: v1 + 1, errors: []))
        #expect(try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("revolver")]))).count == 1)
        let remastered = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("remastered")])))
        #expect(remastered.map(\.entity.id) == ["abbey-road"])
        let deleted = try engine.delete([
            EntityRef(type: "album", id: "revolver"), EntityRef(type: "album", id: "nope"),
        ])
        #expect(deleted.applied == 1)
        #expect(deleted.catalogVersion == v1 + 2)
        #expect(deleted.errors.map(\.index) == [1])
        #expect(try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("revolver")]))).isEmpty)
        // The replaced snapshot is still there for page tokens.
        #expect(engine.snapshot(version: v1)?.entity(EntityRef(type: "album", id: "abbey-road"))?.title == "Abbey Road")
    }

    @Test func printsStayFindableAcrossReplacementsAppendsAndDeletes() throws {
        let engine = Fixtures.engine()
        let probe = QueryRequest(
            descriptor: Descriptor(featurePrint: FeaturePrint(model: "m3", values: [0, 0, 1])), maxDistance: 0.01)
        func found() throws -> [String] { try engine.query(probe).filter { $0.match == .image }.map(\.entity.id) }
        #expect(try found() == ["kind-of-blue"])
        // A replacement without a print change and an append with a print: rows are shared, then added.
        var blue = try #require(engine.snapshot.entity(EntityRef(type: "album", id: "kind-of-blue")))
        blue.title = "Kind of Blue (Legacy)"
        try engine.upsert([
            blue,
            Entity(type: "album", id: "new", title: "New", prints: [FeaturePrint(model: "m3", values: [0, 0.001, 1])]),
        ])
        #expect(try found() == ["kind-of-blue", "new"])
        // A print change and a delete rebuild the rows.
        blue.prints = [FeaturePrint(model: "m3", values: [0, 1, 0])]
        try engine.upsert([blue])
        try engine.delete([EntityRef(type: "album", id: "abbey-road")])
        #expect(try found() == ["new"])
    }

    @Test func aBatchWithBadEntitiesIsRejectedWholeNamingEachByIndex() throws {
        let engine = Fixtures.engine()
        let before = engine.snapshot
        let error = #expect(throws: SearchError.self) {
            try engine.upsert([
                Entity(type: "album", id: "", title: "No id"),
                Entity(
                    type: "album", id: "p", title: "Wrong print", prints: [FeaturePrint(model: "m3", values: [1, 2])]),
                Entity(type: "album", id: "ok", title: "Fine"),
                Entity(type: "album", id: "nan", title: "NaN", attributes: ["price": .number(.nan)]),
            ])
        }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "3 of 4 entities are invalid, nothing was applied: entity 0 (album/): missing \"id\"; "
                + "entity 1 (album/p): print of model m3 has 2 values; the catalog's have 3; "
                + "entity 3 (album/nan): attribute price is not a finite number")
        // Nothing half-applied: the good entity of the batch is not there, and the version stands.
        #expect(engine.snapshot === before)
        #expect(engine.snapshot.entity(EntityRef(type: "album", id: "ok")) == nil)
    }

    @Test func aDeleteWithAReferenceWithoutIdRemovesNothing() throws {
        let engine = Fixtures.engine()
        let before = engine.snapshot
        let error = #expect(throws: SearchError.self) {
            try engine.delete([EntityRef(type: "album", id: "abbey-road"), EntityRef(type: "album", id: "")])
        }
        #expect(error?.message == "entity 1 of the batch needs a type and an id; nothing was removed")
        #expect(engine.snapshot === before)
    }

    @Test func aReloadOfTheSameBytesKeepsTheWritesMadeOnTopOfIt() throws {
        let text = Array(#"{"type":"track","id":"t","title":"Horn Concerto"}"#.utf8)
        let engine = SearchEngine(catalog: CatalogLoader.parse(text))
        try engine.upsert([Entity(type: "track", id: "u", title: "Tuba Solo")])
        let kept = try engine.replace(with: CatalogLoader.parse(text))
        #expect(kept.applied == 0)
        #expect(engine.snapshot.count == 2)
        try engine.replace(with: CatalogLoader.parse(text + Array(" ".utf8)))
        #expect(engine.snapshot.count == 1)
    }

    @Test func aReloadReplacesTheCatalogAndItsSynonyms() throws {
        let engine = Fixtures.engine()
        try engine.replace(
            with: CatalogLoader.parse(
                Array(#"{"synonyms":["tuba","horn"]}"#.utf8) + [10]
                    + Array(#"{"type":"track","id":"t","title":"Horn Concerto"}"#.utf8)))
        #expect(engine.snapshot.count == 1)
        let results = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("tuba")])))
        #expect(results.map(\.entity.id) == ["t"])
    }

    @Test func theStreamingQueryYieldsTheSameResults() async throws {
        let engine = Fixtures.engine()
        let request = QueryRequest(descriptor: Descriptor(labels: [Label("beatles")]))
        var streamed = [QueryResult]()
        for try await r in engine.streamQuery(request) { streamed.append(r) }
        #expect(streamed == (try engine.query(request)))
        var failed = false
        do {
            for try await _ in engine.streamQuery(QueryRequest(descriptor: Descriptor(), limit: -1)) {}
        } catch {
            failed = (error as? SearchError)?.code == .invalidArgument
        }
        #expect(failed)
    }
}
