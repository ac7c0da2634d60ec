import Testing

@testable import SearchSession

/// Every result can be opened: with a linker that says which types it opens, entities of other
/// types appear only when their own catalog link opens them, in the sheet, the pages, the counts
/// and the facets alike.
@Suite struct OpenableResultsTests {
    /// Albums and artists have routes; videos do not, and only links under `music://album/` open.
    static func linker() -> EntityLinker {
        EntityLinker(
            { ref in ["album", "artist"].contains(ref.type) ? "music://\(ref.type)/\(ref.id)" : nil },
            opensType: { ["album", "artist"].contains($0) },
            opensLink: { $0.hasPrefix("music://album/") })
    }

    /// Two albums and an artist (routed), a video whose own link opens an album, and two videos
    /// that cannot be opened: one with a link nothing resolves, one with none.
    static let jsonl = """
        {"type":"album","id":"blue-train","title":"Blue Train","subtitle":"John Coltrane","category":"Music/Jazz","tags":["jazz"],"related":[{"type":"video","id":"train-live"},{"type":"artist","id":"coltrane"}]}
        {"type":"album","id":"giant-steps","title":"Giant Steps","subtitle":"John Coltrane","category":"Music/Jazz","tags":["jazz"]}
        {"type":"artist","id":"coltrane","title":"John Coltrane","subtitle":"Saxophone","category":"Music/Jazz","tags":["jazz"]}
        {"type":"video","id":"train-clip","title":"Blue Train clip","subtitle":"Jazz video","category":"Music/Jazz","tags":["jazz"],"link":"music://album/blue-train"}
        {"type":"video","id":"train-live","title":"Blue Train live","subtitle":"Jazz video","category":"Music/Jazz","tags":["jazz"],"link":"music://video/train-live"}
        {"type":"video","id":"steps-live","title":"Giant Steps live","subtitle":"Jazz video","category":"Music/Jazz","tags":["jazz"]}
        """

    static func engine() -> SearchEngine {
        let file = CatalogLoader.parse(Array(jsonl.utf8))
        precondition(file.errors.isEmpty, "\(file.errors)")
        return SearchEngine(catalog: file, nowMs: { 1_900_000_000_000 })
    }

    static let openable: Set<String> = ["blue-train", "giant-steps", "coltrane", "train-clip"]
    static let jazz = Descriptor(labels: [Label("jazz")])

    @Test("the sheet leaves out what cannot be opened, related entities included")
    func sheetLeavesOutUnopenable() throws {
        let engine = Self.engine()
        let everything = try engine.query(QueryRequest(descriptor: Self.jazz, limit: 20))
        #expect(Set(everything.map(\.entity.id)).count == 6)
        let linker = Self.linker()
        let sheet = try engine.query(QueryRequest(descriptor: Self.jazz, limit: 20), linker: linker)
        #expect(Set(sheet.map(\.entity.id)) == Self.openable)
        #expect(sheet.first { $0.entity.id == "train-clip" }?.deepLink == "music://album/blue-train")
        // "Blue Train" relates to the unopenable live video: it is not surfaced as related either.
        let blueTrain = try engine.query(
            QueryRequest(descriptor: Descriptor(labels: [Label("blue train")]), limit: 20), linker: linker)
        #expect(!blueTrain.contains { $0.entity.id == "train-live" })
        #expect(blueTrain.contains { $0.entity.id == "coltrane" })
    }

    @Test("pages, hit counts and the type facet count only what can be opened, on every page")
    func searchLeavesOutUnopenable() async throws {
        let engine = Self.engine()
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore())
        let linker = Self.linker()
        var state = try await sessions.capture(Self.jazz, pageSize: 2, linker: linker)
        #expect(state.totalHits == Self.openable.count)
        let types = state.facets.first { $0.name == "type" }
        #expect(types?.values.first { $0.value == "video" }?.count == 1)
        var seen = state.results.map(\.entity.id)
        while !state.nextPageToken.isEmpty {
            state = try await sessions.search(
                SearchRequest(sessionID: state.sessionID, pageToken: state.nextPageToken), linker: linker)
            seen += state.results.map(\.entity.id)
        }
        #expect(seen.count == Self.openable.count)
        #expect(Set(seen) == Self.openable)
        // Without a linker (the library on its own) every entity is a result.
        let plain = try await sessions.capture(Self.jazz, pageSize: 10)
        #expect(plain.totalHits == 6)
    }

    @Test("a linker that opens every type leaves the snapshot itself, with nothing copied")
    func everyTypeOpenedKeepsTheSnapshot() throws {
        let engine = Self.engine()
        let all = EntityLinker({ _ in nil }, opensType: { _ in true })
        #expect(engine.snapshot.served(by: all) === engine.snapshot)
        #expect(engine.snapshot.served(by: nil) === engine.snapshot)
        let some = Self.linker()
        let view = engine.snapshot.served(by: some)
        #expect(view !== engine.snapshot)
        #expect(view.count == Self.openable.count)
        #expect(engine.snapshot.served(by: some) === view)
    }
}
