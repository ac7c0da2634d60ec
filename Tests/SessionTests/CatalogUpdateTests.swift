import Testing

@testable import SearchSession

@Suite struct CatalogUpdateTests {
    @Test func upsertsAndDeletesAreVisibleToNewQueriesWithANewVersion() throws {
        let engine = Fixtures.engine()
        let v1 = engine.snapshot.version
        let update = engine.upsert([
            Entity(type: "album", id: "revolver", title: "Revolver", tags: ["rock"]),
            Entity(type: "album", id: "abbey-road", title: "Abbey Road Remastered"),
        ])
        #expect(update == CatalogUpdate(applied: 2, catalogVersion: v1 + 1, errors: []))
        #expect(try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("revolver")]))).count == 1)
        let remastered = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("remastered")])))
        #expect(remastered.map(\.entity.id) == ["abbey-road"])
        let deleted = engine.delete([EntityRef(type: "album", id: "revolver"), EntityRef(type: "album", id: "nope")])
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
        engine.upsert([
            blue,
            Entity(type: "album", id: "new", title: "New", prints: [FeaturePrint(model: "m3", values: [0, 0.001, 1])]),
        ])
        #expect(try found() == ["kind-of-blue", "new"])
        // A print change and a delete rebuild the rows.
        blue.prints = [FeaturePrint(model: "m3", values: [0, 1, 0])]
        engine.upsert([blue])
        engine.delete([EntityRef(type: "album", id: "abbey-road")])
        #expect(try found() == ["new"])
    }

    @Test func badEntitiesInABatchAreRejectedWithTheirIndex() {
        let engine = Fixtures.engine()
        let update = engine.upsert([
            Entity(type: "album", id: "", title: "No id"),
            Entity(type: "album", id: "p", title: "Wrong print", prints: [FeaturePrint(model: "m3", values: [1, 2])]),
            Entity(type: "album", id: "ok", title: "Fine"),
            Entity(type: "album", id: "nan", title: "NaN", attributes: ["price": .number(.nan)]),
        ])
        #expect(update.applied == 1)
        #expect(
            update.errors == [
                .init(index: 0, entity: EntityRef(type: "album", id: ""), message: "missing \"id\""),
                .init(
                    index: 1, entity: EntityRef(type: "album", id: "p"),
                    message: "print of model m3 has 2 values; the catalog's have 3"),
                .init(
                    index: 3, entity: EntityRef(type: "album", id: "nan"),
                    message: "attribute price is not a finite number"),
            ])
    }

    @Test func aReloadReplacesTheCatalogAndItsSynonyms() throws {
        let engine = Fixtures.engine()
        engine.replace(
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
