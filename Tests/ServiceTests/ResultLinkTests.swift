import ContinueService
import DeepLinkRouter
import Foundation
import SearchAPI
import SearchSession
import Testing
import WireProtocol

/// Result deep links through the service: the router's canonical link, cached per catalog
/// snapshot, and never an old route table's after the table is reloaded.
@Suite struct ResultLinkTests {
    static let demo = DemoService.directory

    /// The demo route table with albums moved from `/album/…` to `/records/…`.
    static func movedAlbumsRouter() throws -> Router {
        let text = try String(contentsOfFile: demo + "/routes.json", encoding: .utf8)
        let moved = text.replacingOccurrences(
            of: "\"pattern\": \"/album/{id:slug}\"", with: "\"pattern\": \"/records/{id:slug}\"")
        #expect(moved != text, "the demo route table changed shape; update this test")
        return Router(table: try RouteTable(jsonString: moved))
    }

    /// The sheet for a labels query through a service: albums and artists, all direct matches.
    static func sheet(_ service: VisualSearchService) async throws -> [SearchAPI.QueryResult] {
        try await withTestServer(methods: service.methods) { addresses in
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            defer { Task { await client.close() } }
            let request = SearchAPI.QueryRequest(
                descriptor: SearchAPI.Descriptor(
                    labels: ["jazz", "rock", "band", "album"].map { SearchAPI.Label(text: $0, confidence: 0.9) },
                    source: .camera),
                limit: 20)
            return try await client.query(request).results
        }
    }

    /// Each result's link computed afresh: the router's canonical link, else the catalog's own.
    static func expectedLinks(
        _ results: [SearchAPI.QueryResult], router: Router, engine: SearchEngine
    ) throws -> [String] {
        try results.map { r in
            let entity = try #require(r.entity)
            if let link = try? router.link(entityType: entity.type, id: entity.id) { return link.canonicalURL }
            return try #require(engine.snapshot.entity(.init(type: entity.type, id: entity.id))).link
        }
    }

    @Test("results link like the router, and a reloaded route table's service links with the new table")
    func reloadedRouteTableLinksWithTheNewTable() async throws {
        let service = try DemoService.make()
        let engine = service.sessions.engine
        let first = try await Self.sheet(service)
        #expect(first.contains { $0.entity?.type == "album" })
        #expect(first.map(\.deepLink) == (try Self.expectedLinks(first, router: service.router, engine: engine)))
        // A reloaded route table: a new service over the same sessions, on the same snapshot.
        let reloaded = VisualSearchService(sessions: service.sessions, router: try Self.movedAlbumsRouter())
        let second = try await Self.sheet(reloaded)
        #expect(second.map(\.entity) == first.map(\.entity))
        #expect(second.map(\.deepLink) == (try Self.expectedLinks(second, router: reloaded.router, engine: engine)))
        #expect(second.contains { $0.deepLink.contains("/records/") })
        #expect(!second.contains { $0.deepLink.contains("/album/") })
    }

    @Test("after an upsert and a delete the links follow the new catalog")
    func catalogChangesRelinkResults() async throws {
        let service = try DemoService.make()
        let engine = service.sessions.engine
        let first = try await Self.sheet(service)
        let album = try #require(first.first { $0.entity?.type == "album" }?.entity)
        let removed = try #require(first.last?.entity)
        var renamed = try #require(engine.snapshot.entity(.init(type: album.type, id: album.id)))
        renamed.title += " (Remastered)"
        try engine.upsert([renamed])
        try engine.delete([.init(type: removed.type, id: removed.id)])
        let second = try await Self.sheet(service)
        #expect(!second.contains { $0.entity == removed })
        #expect(second.contains { $0.title.hasSuffix("(Remastered)") })
        #expect(second.map(\.deepLink) == (try Self.expectedLinks(second, router: service.router, engine: engine)))
    }
}
