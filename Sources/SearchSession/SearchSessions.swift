/// "More results": captures descriptors into sessions and refines them.
///
/// Capture keeps the labels, the reduced image's print (never the pixels), the source and the
/// locale under an unguessable id with a time to live, and answers with the pre-populated search
/// state. Search loads the session from the store, so any instance sharing the store can
/// continue it.
public final class SearchSessions: Sendable {
    /// The largest page size a capture may ask for.
    public static let maximumPageSize = SearchEngine.maximumPageSize

    /// The catalog.
    public let engine: SearchEngine
    /// Where sessions live.
    public let store: any SessionStore
    /// How long a session lives after capture.
    public let timeToLive: Duration

    /// Creates the session front of an engine.
    ///
    /// - Parameters:
    ///   - engine: The catalog.
    ///   - store: Where sessions live.
    ///   - timeToLive: How long a session lives after capture (default one day).
    public init(engine: SearchEngine, store: any SessionStore, timeToLive: Duration = .seconds(86_400)) {
        self.engine = engine
        self.store = store
        self.timeToLive = timeToLive
    }

    /// Stores a descriptor as a session and returns its first page.
    ///
    /// - Parameters:
    ///   - descriptor: What was captured.
    ///   - pageSize: Results per page; 0 means 20, values above 100 are capped.
    ///   - maxFacetValues: The most values each facet lists; 0 means
    ///     ``SearchEngine/defaultFacetValues``.
    ///   - maxFacets: The most attribute facets listed; 0 means ``SearchEngine/defaultFacets``.
    ///   - linker: Gives results their canonical deep links (see ``SearchEngine/search(session:request:linker:)``).
    /// - Returns: The pre-populated search state.
    /// - Throws: ``SearchError/Code/invalidArgument`` for a malformed descriptor;
    ///   ``SearchError/Code/storage`` when the session cannot be stored.
    public func capture(
        _ descriptor: Descriptor, pageSize: Int = 0, maxFacetValues: Int = 0, maxFacets: Int = 0,
        maxDistance: Float? = nil, linker: EntityLinker? = nil
    ) async throws(SearchError) -> SearchState {
        if pageSize < 0 { throw .invalid("page size \(pageSize) must not be negative") }
        if let maxDistance, !(maxDistance.isFinite && maxDistance >= 0) {
            throw .invalid("max distance \(maxDistance) must be a finite number ≥ 0")
        }
        if maxFacetValues < 0 { throw .invalid("max facet values \(maxFacetValues) must not be negative") }
        if maxFacets < 0 { throw .invalid("max facets \(maxFacets) must not be negative") }
        let snapshot = engine.snapshot
        let evidence = try SearchEngine.imageEvidence(of: descriptor, in: snapshot)
        let prints = (evidence.picture.map { [$0.print] } ?? []) + evidence.clientPrints
        let pictureMatch = evidence.picture?.match.map { match in
            let (segment, local) = snapshot.locate(match.doc)
            return PictureMatch(entity: snapshot.segments[segment].ref(of: local), distance: match.distance)
        }
        let now = engine.nowMs()
        let ttlMs = timeToLive.wholeMilliseconds
        let record = SessionRecord(
            id: SessionRecord.newID(), labels: descriptor.labels.filter { !$0.text.isEmpty }, prints: prints,
            source: descriptor.source, locale: descriptor.locale,
            pageSize: pageSize == 0 ? SearchEngine.defaultPageSize : min(pageSize, Self.maximumPageSize),
            createdAtUnixMs: now, expiresAtUnixMs: now + ttlMs, maxDistance: maxDistance, pictureMatch: pictureMatch)
        // The session is stored while its first page is searched: the store's commit (an fsync
        // for SQLite, a round trip for Redis) overlaps the search instead of adding to it. The
        // page is answered only once the session is stored.
        async let storing: SearchError? = {
            do throws(SearchError) {
                try await store.save(record)
                return nil
            } catch {
                return error
            }
        }()
        let state: SearchState
        do {
            state = try engine.search(
                session: record,
                request: SearchRequest(
                    sessionID: record.id, maxFacetValues: maxFacetValues, maxFacets: maxFacets),
                linker: linker)
        } catch {
            _ = await storing
            throw error
        }
        if let failed = await storing { throw failed }
        return state
    }

    /// Refines a session.
    ///
    /// - Parameters:
    ///   - request: The whole refinement and the page token.
    ///   - linker: Gives results their canonical deep links (see ``SearchEngine/search(session:request:linker:)``).
    /// - Returns: The search state for that page.
    /// - Throws: ``SearchError/Code/notFound`` for an unknown or expired session;
    ///   ``SearchError/Code/invalidArgument`` for a bad refinement or token.
    public func search(_ request: SearchRequest, linker: EntityLinker? = nil) async throws(SearchError) -> SearchState {
        let record = try await store.load(id: request.sessionID, nowUnixMs: engine.nowMs())
        return try engine.search(session: record, request: request, linker: linker)
    }

    /// Deletes expired sessions from the store.
    ///
    /// - Returns: How many were deleted.
    @discardableResult
    public func purgeExpired() async throws(SearchError) -> Int {
        try await store.purgeExpired(nowUnixMs: engine.nowMs())
    }

    /// Purges expired sessions every `interval` until the task is cancelled.
    ///
    /// Run it under a service group (or any task) for the life of the server; cancellation stops
    /// it without an error. A failing purge is retried at the next interval.
    ///
    /// - Parameter interval: Time between purges.
    public func run(every interval: Duration = .seconds(300)) async {
        while !Task.isCancelled {
            _ = try? await purgeExpired()
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }
}
