import Testing

@testable import SearchSession

/// Which replaced snapshots the engine keeps for page tokens.
@Suite struct RetentionTests {
    static func engine(
        tokenGrace: Duration = .seconds(10), budget: Int = 64 << 20, mergeFactor: Int = 8
    ) -> SearchEngine {
        var policy = MergePolicy()
        policy.mergeFactor = mergeFactor
        return SearchEngine(
            current: CatalogSnapshot(version: 1, entities: RandomCatalog.entities(60, seed: 5), synonyms: []),
            baseline: "test", nextGeneration: 2, log: nil, index: nil, retention: .seconds(900), maximumRetained: 100,
            tokenGrace: tokenGrace, retainedSegmentBudget: budget, mergePolicy: policy, nowMs: { 0 })
    }

    static let session = SessionRecord(
        id: "s", labels: [], prints: [], source: .camera, locale: "", pageSize: 5, createdAtUnixMs: 0,
        expiresAtUnixMs: .max)

    static func entity(_ n: Int) -> Entity { Entity(type: "album", id: "new\(n)", title: "New \(n)") }

    @Test func aSnapshotThatHandedOutAPageTokenStaysAndOneThatDidNotGoesAfterTheGrace() throws {
        let engine = Self.engine(tokenGrace: .zero)
        let first = try engine.search(session: Self.session, request: SearchRequest(sessionID: "s"))
        #expect(!first.nextPageToken.isEmpty)
        try engine.upsert([Self.entity(1)])  // version 1 retired, with a token out
        try engine.upsert([Self.entity(2)])  // version 2 retired, none out
        try engine.upsert([Self.entity(3)])  // version 2 is past the (zero) grace: dropped
        #expect(engine.snapshot(version: 1) != nil)
        #expect(engine.snapshot(version: 2) == nil)
        let next = try engine.search(
            session: Self.session, request: SearchRequest(sessionID: "s", pageToken: first.nextPageToken))
        #expect(next.catalogVersion == 1)
        #expect(Set(next.results.map(\.entity)).isDisjoint(with: first.results.map(\.entity)))
    }

    @Test(arguments: [false, true])
    func pastTheSegmentBudgetTheOldestReplacedSnapshotsGoFirst(overBudget: Bool) throws {
        let engine = Self.engine(budget: overBudget ? 0 : 64 << 20, mergeFactor: 2)
        let first = try engine.search(session: Self.session, request: SearchRequest(sessionID: "s"))
        try engine.upsert([Self.entity(1)])
        try engine.upsert([Self.entity(2)])
        // The two one-entity segments merge: the snapshots before hold segments merged away.
        engine.mergeUntilSettled()
        #expect(engine.snapshot.segments.count == 2)
        let request = SearchRequest(sessionID: "s", pageToken: first.nextPageToken)
        if overBudget {
            #expect(engine.snapshot(version: 1) == nil)
            let error = #expect(throws: SearchError.self) { try engine.search(session: Self.session, request: request) }
            #expect(error?.code == .catalogChanged)
        } else {
            #expect(try engine.search(session: Self.session, request: request).catalogVersion == 1)
        }
    }

    @Test func theDefaultBudgetOfASmallIndexIsItsFloor() {
        // A quarter of the index's bytes, within 8 and 64 MiB: a small index gets the floor.
        let small = CatalogSnapshot(version: 1, entities: RandomCatalog.entities(60, seed: 5), synonyms: [])
        #expect(small.segments.reduce(0) { $0 + $1.region.count } < 32 << 20)
        #expect(SearchEngine.defaultRetainedBytes(current: small) == 8 << 20)
    }
}
