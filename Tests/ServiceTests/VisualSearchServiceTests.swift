import ContinueService
import SearchAPI
import Testing
import WireProtocol

/// The VisualSearch service on the bundled demo, through the real server and our typed client.
@Suite struct VisualSearchServiceTests {
    /// Runs `body` with a client of a fresh demo service.
    func withDemo(_ body: @Sendable (ServiceClient) async throws -> Void) async throws {
        let service = try DemoService.make()
        try await withTestServer(methods: service.methods) { addresses in
            let client = ServiceClient(
                target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!), metadata: DemoService.writerMetadata)
            try await body(client)
            await client.close()
        }
    }

    static func labels(_ texts: String...) -> SearchAPI.Descriptor {
        SearchAPI.Descriptor(labels: texts.map { SearchAPI.Label(text: $0, confidence: 0.9) }, source: .camera)
    }

    @Test("a labels query returns a capped, ranked union of entity types with deep links")
    func labelsQuery() async throws {
        try await withDemo { client in
            let response = try await client.query(
                // Labels that entities of several types carry: playlists and concerts, all direct
                // matches (a label many share brings no related entities).
                QueryRequest(descriptor: Self.labels("classical", "live"), limit: 8))
            #expect(!response.results.isEmpty)
            #expect(response.results.count <= 8)
            #expect(Set(response.results.compactMap { $0.entity?.type }).count > 1, "one entity type only")
            #expect(response.results.map(\.score) == response.results.map(\.score).sorted(by: >))
            for result in response.results {
                #expect(result.deepLink.hasPrefix("music://"), "\(result.deepLink)")
                #expect(!result.title.isEmpty)
            }
        }
    }

    @Test("a query that matches nothing is empty, and the limit is capped at 20")
    func emptinessAndCap() async throws {
        try await withDemo { client in
            let none = try await client.query(QueryRequest(descriptor: Self.labels("zzqxv")))
            #expect(none.results.isEmpty)
            let many = try await client.query(
                QueryRequest(descriptor: Self.labels("music", "band", "album"), limit: 500))
            #expect(many.results.count <= 20)
        }
    }

    @Test("the streaming query sends the same results as the unary one, in order")
    func streamingQuery() async throws {
        try await withDemo { client in
            let request = QueryRequest(descriptor: Self.labels("rock", "guitar"), limit: 10)
            let unary = try await client.query(request).results.map(\.entity)
            var streamed: [EntityRef?] = []
            for try await result in try await client.streamQuery(request) { streamed.append(result.entity) }
            #expect(streamed == unary)
        }
    }

    @Test(
        "malformed descriptors are INVALID_ARGUMENT",
        arguments: [
            QueryRequest(),
            QueryRequest(
                descriptor: SearchAPI.Descriptor(
                    pixelBuffer: PixelBuffer(
                        width: 4, height: 4, bytesPerRow: 8, format: .rgba8, data: [UInt8](repeating: 0, count: 64)))),
            QueryRequest(
                descriptor: SearchAPI.Descriptor(
                    pixelBuffer: PixelBuffer(width: 0, height: 4, bytesPerRow: 0, format: .gray8, data: []))),
            QueryRequest(
                descriptor: SearchAPI.Descriptor(
                    pixelBuffer: PixelBuffer(
                        width: 2, height: 2, bytesPerRow: 2, format: .unspecified, data: [0, 0, 0, 0]))),
            QueryRequest(descriptor: SearchAPI.Descriptor(featurePrint: FeaturePrint(model: "m", values: [.nan]))),
        ])
    func malformedDescriptors(request: QueryRequest) async throws {
        try await withDemo { client in
            let error = await #expect(throws: RPCError.self) { try await client.query(request) }
            #expect(error?.code == .invalidArgument, "\(error?.message ?? "")")
        }
    }

    @Test("capture opens a filled-in search; pages neither repeat nor skip; unknown sessions are NOT_FOUND")
    func captureAndSearch() async throws {
        try await withDemo { client in
            let state = try await client.capture(CaptureRequest(descriptor: Self.labels("rock"), pageSize: 5))
            #expect(state.sessionID.count == 32)
            #expect(state.chips.map(\.text) == ["rock"])
            #expect(!state.facets.isEmpty)
            #expect(state.results.count == 5)
            #expect(state.totalHits > 5)
            var seen = state.results.compactMap(\.entity)
            var token = state.nextPageToken
            while !token.isEmpty {
                let page = try await client.search(SearchRequest(sessionID: state.sessionID, pageToken: token))
                #expect(page.totalHits == state.totalHits)
                seen += page.results.compactMap(\.entity)
                token = page.nextPageToken
            }
            #expect(seen.count == Int(state.totalHits))
            #expect(Set(seen).count == seen.count, "a page repeated an item")

            let albums = try await client.search(SearchRequest(sessionID: state.sessionID, entityTypes: ["album"]))
            #expect(albums.results.allSatisfy { $0.entity?.type == "album" })
            let typeFacet = try #require(albums.facets.first { $0.kind == .type })
            #expect(typeFacet.values.contains { $0.value == "album" && $0.selected })

            let error = await #expect(throws: RPCError.self) {
                try await client.search(SearchRequest(sessionID: "00000000000000000000000000000000"))
            }
            #expect(error?.code == .notFound)
        }
    }

    @Test("an out-of-catalog capture still opens a filled-in search")
    func neverBlank() async throws {
        try await withDemo { client in
            let state = try await client.capture(CaptureRequest(descriptor: Self.labels("zzqxv")))
            #expect(!state.relaxations.isEmpty)
            #expect(!state.browseCategories.isEmpty || !state.results.isEmpty)
        }
    }

    @Test("resolve goes from an app URL, a universal link or an entity to the same screen; link goes back")
    func resolveAndLink() async throws {
        try await withDemo { client in
            let fromURL = try await client.resolve(ResolveRequest(target: .url("music://album/little-morning")))
            let fromLink = try await client.resolve(
                ResolveRequest(target: .url("https://music.example.com/album/little-morning")))
            let fromEntity = try await client.resolve(
                ResolveRequest(target: .entity(EntityRef(type: "album", id: "little-morning"))))
            #expect(fromURL.screen == "album")
            #expect(fromURL.entity == EntityRef(type: "album", id: "little-morning"))
            #expect(fromLink.entity == fromURL.entity)
            #expect(fromEntity.entity == fromURL.entity)
            let link = try await client.link(
                LinkRequest(target: .entity(EntityRef(type: "album", id: "little-morning"))))
            #expect(link.appURL.hasPrefix("music://album/little-morning"))
            let back = try await client.link(LinkRequest(target: .destination(fromURL)))
            #expect(back.url == fromURL.canonicalURL)
        }
    }

    @Test(
        "resolve refuses what must not open, with the fitting status",
        arguments: [
            ("javascript:alert(1)", Status.Code.permissionDenied),
            ("https://evil.test/album/x", .permissionDenied),
            ("https://user:pw@music.example.com/album/x", .permissionDenied),
            ("http://[::1", .invalidArgument),
        ])
    func refusals(url: String, code: Status.Code) async throws {
        try await withDemo { client in
            let error = await #expect(throws: RPCError.self) {
                try await client.resolve(ResolveRequest(target: .url(url)))
            }
            #expect(error?.code == code, "\(error?.message ?? "")")
        }
    }

    @Test("catalog upserts and deletes are visible to the next query")
    func liveUpdates() async throws {
        try await withDemo { client in
            let entity = SearchAPI.Entity(
                type: "album", id: "zebra-quartet", title: "Zebraquartet Live", category: "Music/Jazz",
                tags: ["zebraquartet"])
            let upserted = try await client.upsertEntities(UpsertEntitiesRequest(entities: [entity]))
            #expect(upserted.applied == 1)
            let found = try await client.query(QueryRequest(descriptor: Self.labels("zebraquartet")))
            #expect(found.results.first?.entity == EntityRef(type: "album", id: "zebra-quartet"))
            let deleted = try await client.deleteEntities(
                DeleteEntitiesRequest(entities: [EntityRef(type: "album", id: "zebra-quartet")]))
            #expect(deleted.applied == 1)
            #expect(deleted.catalogVersion > upserted.catalogVersion)
            let gone = try await client.query(QueryRequest(descriptor: Self.labels("zebraquartet")))
            #expect(gone.results.isEmpty)
        }
    }

    @Test(
        "writes whose bytes do not decode are INTERNAL for a writer, UNAUTHENTICATED for anyone else, and change nothing",
        arguments: [MethodPaths.VisualSearch.upsertEntities, MethodPaths.VisualSearch.deleteEntities])
    func undecodableWrites(path: String) async throws {
        // Writes are decoded on their lane, after the write guard: a caller without the token
        // learns nothing about its bytes, and a writer's bad bytes leave the catalog as it was.
        let service = try DemoService.make()
        try await withTestServer(methods: service.methods) { addresses in
            let target = GRPCClient.Target.tcp(host: "127.0.0.1", port: addresses.tcpPort!)
            let client = ServiceClient(target: target, metadata: DemoService.writerMetadata)
            let before = try await client.catalogInfo(CatalogInfoRequest())
            let raw = GRPCClient(target: target)
            // Field 1 (entities) said to be 100 bytes long, with 2 there.
            let garbage: [UInt8] = [0x0A, 0x64, 0x01, 0x02]
            for (metadata, code) in [(DemoService.writerMetadata, Status.Code.internalError), ([:], .unauthenticated)] {
                let error = await #expect(throws: RPCError.self) {
                    try await raw.unary(path: path, request: garbage, metadata: metadata)
                }
                #expect(error?.code == code, "\(error?.message ?? "")")
            }
            let after = try await client.catalogInfo(CatalogInfoRequest())
            #expect(after.catalogVersion == before.catalogVersion && after.digest == before.digest)
            await raw.close()
            await client.close()
        }
    }
}

/// CatalogInfo: which catalog an instance serves.
@Suite struct CatalogInfoTests {
    @Test("the digest follows the catalog's content, not the order its writes were indexed in")
    func digestFollowsContent() async throws {
        let first = try DemoService.make()
        let second = try DemoService.make()
        let entities = (0..<3).map { i in
            SearchAPI.Entity(type: "album", id: "info-\(i)", title: "Info \(i)", category: "Music/Jazz")
        }
        try await withTestServer(methods: first.methods) { addresses in
            let client = ServiceClient(
                target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!), metadata: DemoService.writerMetadata)
            let before = try await client.catalogInfo()
            #expect(before.caughtUp && before.digest.count == 16 && before.entityCount > 100)
            // One batch on this instance, one entity at a time (three segments) on the other.
            let update = try await client.upsertEntities(UpsertEntitiesRequest(entities: entities))
            let after = try await client.catalogInfo()
            #expect(after.catalogVersion == update.catalogVersion)
            #expect(after.entityCount == before.entityCount + 3)
            #expect(after.digest != before.digest)
            try await withTestServer(methods: second.methods) { other in
                let otherClient = ServiceClient(
                    target: .tcp(host: "127.0.0.1", port: other.tcpPort!), metadata: DemoService.writerMetadata)
                for entity in entities {
                    _ = try await otherClient.upsertEntities(UpsertEntitiesRequest(entities: [entity]))
                }
                #expect(try await otherClient.catalogInfo().digest == after.digest)
                _ = try await otherClient.deleteEntities(
                    DeleteEntitiesRequest(entities: [EntityRef(type: "album", id: "info-0")]))
                #expect(try await otherClient.catalogInfo().digest != after.digest)
                await otherClient.close()
            }
            await client.close()
        }
    }
}

/// A stock grpcio client of VisualSearch, stubs generated from our proto at test time.
@Suite struct GrpcioVisualSearchTests {
    @Test("grpcio queries, captures, pages, caps facets and their values, and resolves against our server")
    func grpcioClient() async throws {
        let service = try DemoService.make()
        try await withTestServer(methods: service.methods) { addresses in
            let output = try await PythonPeer.run("search_client.py", ["127.0.0.1:\(addresses.tcpPort!)"])
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") }.count == 6)
        }
    }
}
