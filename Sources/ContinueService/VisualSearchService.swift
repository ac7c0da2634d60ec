public import DeepLinkRouter
import SearchAPI
public import SearchSession
public import WireProtocol

/// `vicontinue.v1.VisualSearch`: thin handlers from API messages to the libraries.
///
/// Each handler converts the request, calls the search engine, the session layer or the router,
/// and converts the answer back; library errors become their gRPC statuses. Results carry the
/// router's canonical link for their entity; each snapshot of the catalog computes an entity's
/// link once, on first use (see ``EntityLinker``). Every result can be opened: an entity of a type
/// without a route is a result only when its own catalog link resolves through the table.
public struct VisualSearchService: Sendable {
    /// Pixel buffers are large (a 5K screenshot is ~59 MB), so the methods that carry a
    /// descriptor or catalog entities accept more than the default 4 MiB.
    public static let descriptorReceiveLimit = 64 << 20

    /// Sessions, and through them the search engine.
    public let sessions: SearchSessions
    /// The route table for Resolve, Link and result links.
    public let router: DeepLinkRouter.Router
    /// The router's canonical links for results; a service with another router (a reloaded route
    /// table) has its own linker, so the snapshots' cached links are never those of an old table.
    private let linker: EntityLinker
    /// Recent Query answers; each service has its own, since answers carry its router's links.
    private let queryCache: QueryResponseCache
    /// Where catalog writes are decoded and run: each waits for the catalog log's fsync, which
    /// must not hold a thread of the pool that answers searches (see ``BlockingLane``). A
    /// background lane, searches first: a Capture that arrived while a write held the core
    /// waited for the rest of the write's scheduler slice (1.4 ms by default), and under writes
    /// those were most of the slowest Captures. A write's answer under a Capture load takes
    /// longer for it (p50 7.6 → 11 ms on shop-100k at 1,000 upserts a second).
    private let catalogWrites = BlockingLane(label: "vi-continue.catalog-writes", background: true)
    /// Where CatalogInfo reads the whole catalog: behind searches, and not in the way of writes.
    private let catalogReads = BlockingLane(label: "vi-continue.catalog-info", background: true)
    /// Who may call UpsertEntities and DeleteEntities.
    public let writeGuard: WriteGuard
    /// Where catalog writes go: the engine, or a replica of a catalog shared between instances.
    public let catalogWriter: any CatalogWriter

    /// The default for `queryCacheEntries`: about a megabyte of sheet answers at most.
    public static let defaultQueryCacheEntries = 512

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - sessions: Sessions, and through them the search engine.
    ///   - router: The route table for Resolve, Link and result links.
    ///   - queryCacheEntries: How many recent Query answers to keep for repeated requests (twice
    ///     this at most; see ``QueryResponseCache``); 0 answers every call afresh.
    ///   - writeGuard: Who may change the catalog; by default local callers only (Unix socket,
    ///     in-process).
    ///   - catalogWriter: Where catalog writes go; by default the sessions' engine.
    public init(
        sessions: SearchSessions, router: DeepLinkRouter.Router,
        queryCacheEntries: Int = VisualSearchService.defaultQueryCacheEntries,
        writeGuard: WriteGuard = WriteGuard(token: nil), catalogWriter: (any CatalogWriter)? = nil
    ) {
        self.sessions = sessions
        self.router = router
        self.writeGuard = writeGuard
        self.catalogWriter = catalogWriter ?? sessions.engine
        linker = Self.linker(for: router)
        queryCache = QueryResponseCache(capacity: queryCacheEntries)
    }

    /// The linker giving each entity the router's canonical link, `nil` (the catalog's own link)
    /// for a type without a route; such an entity is left out of results unless its own link
    /// resolves to a destination (a fallback screen does not open it).
    static func linker(for router: DeepLinkRouter.Router) -> EntityLinker {
        EntityLinker(
            { entity in try? router.canonicalURL(entityType: entity.type, id: entity.id) },
            opensType: { type in router.opens(entityType: type) },
            opensLink: { link in
                if case .destination = router.resolve(url: link) { return true }
                return false
            })
    }

    /// The sheet query: answered from raw bytes (its cache is keyed by them), in JSON too, and
    /// callable with GET.
    private var queryMethod: ServerMethod {
        // Microseconds from the cache or the index: answered on the loop (a pixel buffer over
        // 64 KiB starts in a task all the same).
        var method = ServerMethod(
            unaryPath: MethodPaths.VisualSearch.query, maxRequestBytes: Self.descriptorReceiveLimit,
            execution: .onLoop
        ) {
            (bytes, _) throws(RPCError) in try answerQuery(bytes)
        }
        method.json = .between(SearchAPI.QueryRequest.self, SearchAPI.QueryResponse.self)
        method.allowsGET = true
        return method
    }

    /// The methods to serve, each with where it runs. None blocks a thread: session stores and
    /// catalog writes and reads do their I/O on lanes of their own and suspend meanwhile, so
    /// every handler starts on the loop (`.onLoop`) and leaves it at its first suspension.
    public var methods: [ServerMethod] {
        typealias Paths = MethodPaths.VisualSearch
        return [
            queryMethod,
            .serverStreaming(Paths.streamQuery, maxRequestBytes: Self.descriptorReceiveLimit, execution: .onLoop) {
                (request: SearchAPI.QueryRequest, _, sink: MessageSink<SearchAPI.QueryResult>) in
                let converted = try SearchSession.QueryRequest(request)
                for try await result in sessions.engine.streamQuery(converted, linker: linker) {
                    try await sink.send(SearchAPI.QueryResult(result))
                }
            },
            .unary(Paths.capture, maxRequestBytes: Self.descriptorReceiveLimit, execution: .onLoop) {
                (request: CaptureRequest, _) -> SearchAPI.SearchState in
                let descriptor = try SearchSession.Descriptor(request.descriptor)
                let state = try await sessions.capture(
                    descriptor, pageSize: Int(request.pageSize), maxFacetValues: Int(request.maxFacetValues),
                    maxFacets: Int(request.maxFacets), maxDistance: request.maxDistance, linker: linker)
                return SearchAPI.SearchState(state)
            },
            .unary(Paths.search, execution: .onLoop) { (request: SearchAPI.SearchRequest, _) -> SearchAPI.SearchState in
                let converted = try SearchSession.SearchRequest(request)
                return SearchAPI.SearchState(try await sessions.search(converted, linker: linker))
            },
            .unaryOnLoop(Paths.resolve) { (request: ResolveRequest, _) throws(RPCError) -> SearchAPI.Destination in
                try resolve(request)
            }.allowingGET(),
            .unaryOnLoop(Paths.link) { (request: LinkRequest, _) throws(RPCError) -> LinkResponse in
                try link(request)
            },
            // Writes are checked on the loop and decoded on their lane (see `catalogWrites`).
            .unary(Paths.upsertEntities, maxRequestBytes: Self.descriptorReceiveLimit, execution: .onLoop) {
                (request: EncodedRequest<UpsertEntitiesRequest>, context) -> CatalogUpdateResponse in
                try writeGuard.check(context)
                return CatalogUpdateResponse(
                    try await catalogWrites.run { [catalogWriter] () throws -> CatalogUpdate in
                        try catalogWriter.upsert(request.decoded().entities.map(SearchSession.Entity.init))
                    })
            },
            .unary(Paths.deleteEntities, execution: .onLoop) {
                (request: EncodedRequest<DeleteEntitiesRequest>, context) -> CatalogUpdateResponse in
                try writeGuard.check(context)
                return CatalogUpdateResponse(
                    try await catalogWrites.run { [catalogWriter] () throws -> CatalogUpdate in
                        try catalogWriter.delete(
                            request.decoded().entities.map { SearchSession.EntityRef(type: $0.type, id: $0.id) })
                    })
            },
            .unary(Paths.catalogInfo, execution: .onLoop) { (_: CatalogInfoRequest, _) -> CatalogInfoResponse in
                // A pass over the whole catalog: on a lane of its own, never on a search thread.
                await catalogReads.run { [engine = sessions.engine, catalogWriter] in
                    let snapshot = engine.snapshot
                    return CatalogInfoResponse(
                        catalogVersion: snapshot.version, entityCount: UInt64(snapshot.count),
                        digest: snapshot.digest, caughtUp: catalogWriter.isCaughtUp)
                }
            },
            .unaryOnLoop(Paths.explainRoute) { (request: ExplainRouteRequest, _) throws(RPCError) -> RouteExplanation in
                guard request.limit <= 100 else {
                    throw RPCError(code: .invalidArgument, message: "limit \(request.limit) is above 100")
                }
                return RouteExplanation(
                    explaining: request.url, on: router, limit: Int(request.limit == 0 ? 3 : request.limit))
            },
            .unary(Paths.checkRoutes, execution: .onLoop) { (_: CheckRoutesRequest, _) -> RouteCheck in
                let snapshot = sessions.engine.snapshot
                return RouteCheck(router: router, entityTypes: snapshot.entityTypes, entityCount: snapshot.count)
            },
        ]
    }

    /// Answers a serialized Query: the kept answer when the same bytes were asked of this catalog
    /// snapshot today, else a fresh search, kept for next time.
    private func answerQuery(_ bytes: [UInt8]) throws(RPCError) -> [UInt8] {
        // Read before searching: a catalog update in between makes the answer newer than its
        // stamp, never older, and the next call's newer stamp empties the cache anyway.
        let stamp = QueryResponseCache.Stamp(
            catalogVersion: sessions.engine.snapshot.version, day: sessions.engine.currentDay)
        if let kept = queryCache.response(to: bytes, stamp: stamp) { return kept }
        let request: SearchAPI.QueryRequest = try decode(bytes)
        let response = try SearchAPI.QueryResponse(results: query(request)).serializedBytes()
        queryCache.store(response, for: bytes, stamp: stamp)
        return response
    }

    private func query(_ request: SearchAPI.QueryRequest) throws(RPCError) -> [SearchAPI.QueryResult] {
        let converted = try SearchSession.QueryRequest(request)
        return try converting { () throws(SearchError) in
            try sessions.engine.query(converted, linker: linker).map(SearchAPI.QueryResult.init)
        }
    }

    private func resolve(_ request: ResolveRequest) throws(RPCError) -> SearchAPI.Destination {
        let resolution: Resolution
        switch request.target {
        case .url(let url): resolution = router.resolve(url: url)
        case .entity(let entity): resolution = router.resolve(entityType: entity.type, id: entity.id)
        case nil: throw RPCError(code: .invalidArgument, message: "resolve needs a url or an entity")
        }
        switch resolution {
        case .destination(let destination), .fallback(let destination): return SearchAPI.Destination(destination)
        case .refused(let refusal): throw RPCError(refusal)
        }
    }

    private func link(_ request: LinkRequest) throws(RPCError) -> LinkResponse {
        switch request.target {
        case .entity(let entity):
            return LinkResponse(
                try converting { () throws(LinkError) in try router.link(entityType: entity.type, id: entity.id) })
        case .destination(let destination):
            guard !destination.route.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "destination.route is required to link")
            }
            var parameters: [String: String] = [:]
            for param in destination.params {
                switch param.value {
                case .intValue(let number): parameters[param.name] = String(number)
                case .stringValue(let string): parameters[param.name] = string
                case nil: parameters[param.name] = ""
                }
            }
            return LinkResponse(
                try converting { () throws(LinkError) in
                    try router.link(route: destination.route, parameters: parameters)
                })
        case nil:
            throw RPCError(code: .invalidArgument, message: "link needs a destination or an entity")
        }
    }

    /// Runs a library call from a synchronous handler (typed throws), its error as its status.
    private func converting<Value, Failure: RPCErrorConvertible>(
        _ body: () throws(Failure) -> Value
    ) throws(RPCError) -> Value {
        do {
            return try body()
        } catch {
            throw RPCError(error)
        }
    }
}
