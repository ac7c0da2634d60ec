import Testing

@testable import SearchSession

@Suite struct SearchTests {
    let engine = Fixtures.engine()

    func session(_ labels: [Label] = [], pageSize: Int = 20) -> SessionRecord {
        SessionRecord(
            id: SessionRecord.newID(), labels: labels, prints: [], source: .camera, locale: "en", pageSize: pageSize,
            createdAtUnixMs: 0, expiresAtUnixMs: 1)
    }

    @Test func captureReturnsAFilledInState() async throws {
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore())
        let state = try await sessions.capture(
            Descriptor(labels: [Label("beatles", confidence: 0.9)], source: .screenshot, locale: "de"), pageSize: 2)
        #expect(SessionRecord.isWellFormed(state.sessionID))
        #expect(state.chips == [Chip(text: "beatles", selected: true, confidence: 0.9)])
        #expect(state.totalHits == 5)
        #expect(state.results.count == 2)
        #expect(!state.nextPageToken.isEmpty)
        #expect(state.facets.map(\.name).prefix(2) == ["type", "category"])
        #expect(state.facets[0].values.contains(FacetValue(value: "concert", count: 2, selected: false)))
        #expect(state.source == .screenshot)
        #expect(state.locale == "de")
        let again = try await sessions.search(SearchRequest(sessionID: state.sessionID, pageToken: state.nextPageToken))
        #expect(again.results.count == 2)
        #expect(Set(again.results.map(\.entity)).isDisjoint(with: state.results.map(\.entity)))
    }

    @Test func unknownExpiredAndMalformedSessionsAreNotFound() async throws {
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore(), timeToLive: .seconds(-1))
        let state = try await sessions.capture(Descriptor(labels: [Label("rock")]))
        await #expect(throws: SearchError.sessionNotFound(state.sessionID)) {
            try await sessions.search(SearchRequest(sessionID: state.sessionID))
        }
        await #expect(throws: SearchError.sessionNotFound("nope")) {
            try await sessions.search(SearchRequest(sessionID: "nope"))
        }
        #expect(try await sessions.purgeExpired() == 1)
    }

    @Test func runPurgesExpiredSessionsUntilCancelled() async throws {
        let store = InMemorySessionStore()
        let sessions = SearchSessions(engine: engine, store: store, timeToLive: .seconds(-1))
        let state = try await sessions.capture(Descriptor(labels: [Label("rock")]))
        let purger = Task { await sessions.run(every: .milliseconds(5)) }
        // Expired sessions are already invisible; wait until the purge removed this one as well.
        while try await store.purgeExpired(nowUnixMs: engine.nowMs()) != 0 { await Task.yield() }
        purger.cancel()
        await purger.value
        await #expect(throws: SearchError.sessionNotFound(state.sessionID)) {
            try await sessions.search(SearchRequest(sessionID: state.sessionID))
        }
    }

    @Test func filtersTypesCategoriesAndExpressionsNarrow() throws {
        let s = session()
        func ids(_ r: SearchRequest) throws -> [String] {
            try engine.search(session: s, request: r).results.map(\.entity.id).sorted()
        }
        #expect(
            try ids(SearchRequest(sessionID: s.id, entityTypes: ["concert"])) == ["beatles-1966", "beatles-berlin"])
        #expect(try ids(SearchRequest(sessionID: s.id, categories: ["Music/Jazz"])) == ["guitar-solo", "kind-of-blue"])
        #expect(try ids(SearchRequest(sessionID: s.id, categories: ["Music"])).count == 8)
        #expect(
            try ids(SearchRequest(sessionID: s.id, filters: [.range("year", min: 1960, max: 1990)])) == [
                "abbey-road", "guitar-solo", "let-it-be",
            ])
        #expect(
            try ids(SearchRequest(sessionID: s.id, filters: [.anyOf("price", ["19", "45"])])) == [
                "beatles-berlin", "let-it-be",
            ])
        let expression = FilterExpression.all([
            .any([.filter(.anyOf("city", ["Berlin"])), .filter(.range("year", max: 1960))]),
            .not(.filter(.anyOf("city", ["Tokyo"]))),
        ])
        #expect(
            try ids(SearchRequest(sessionID: s.id, filterExpression: expression)) == ["beatles-berlin", "kind-of-blue"])
    }

    @Test func sortsByAttributeWithMissingValuesLastAndByTitle() throws {
        let s = session()
        let asc = try engine.search(
            session: s, request: SearchRequest(sessionID: s.id, sort: Sort(key: .attribute, attribute: "year")))
        #expect(
            asc.results.map(\.entity.id).prefix(5) == [
                "kind-of-blue", "abbey-road", "let-it-be", "guitar-solo", "axe-heroes",
            ])
        let desc = try engine.search(
            session: s,
            request: SearchRequest(sessionID: s.id, sort: Sort(key: .attribute, attribute: "year", descending: true)))
        #expect(
            desc.results.map(\.entity.id).prefix(5) == [
                "axe-heroes", "guitar-solo", "let-it-be", "abbey-road", "kind-of-blue",
            ])
        let title = try engine.search(session: s, request: SearchRequest(sessionID: s.id, sort: Sort(key: .title)))
        #expect(title.results.first?.entity.id == "abbey-road")
        #expect(title.results.last?.entity.id == "the-beatles")
    }

    @Test func chipsNarrowAndCanBeSwitchedOff() throws {
        let s = session([Label("beatles", confidence: 0.9), Label("rock", confidence: 0.5)])
        let both = try engine.search(session: s, request: SearchRequest(sessionID: s.id))
        #expect(Set(both.results.map(\.entity.id)) == ["abbey-road", "let-it-be", "the-beatles"])
        let off = try engine.search(session: s, request: SearchRequest(sessionID: s.id, disabledLabels: ["Beatles"]))
        #expect(off.chips.map(\.selected) == [false, true])
        #expect(off.totalHits == 4)
        let text = try engine.search(
            session: s, request: SearchRequest(sessionID: s.id, query: "berlin", disabledLabels: ["rock"]))
        #expect(text.results.map(\.entity.id) == ["beatles-berlin"])
        #expect(text.queryText == "berlin")
    }

    @Test func relaxationDropsTheWeakestLabelAndSaysSo() throws {
        let s = session([Label("guitar", confidence: 0.9), Label("tuba", confidence: 0.4)])
        let state = try engine.search(session: s, request: SearchRequest(sessionID: s.id))
        #expect(
            state.relaxations == [
                Relaxation(kind: .droppedLabel, subject: "tuba", searched: "guitar tuba", shown: "guitar")
            ])
        #expect(state.chips.map(\.selected) == [true, false])
        #expect(Set(state.results.map(\.entity.id)) == ["guitar-solo", "axe-heroes"])
    }

    @Test func relaxationWidensCategoriesThenDropsFilters() throws {
        let s = session([Label("beatles")])
        let widened = try engine.search(session: s, request: SearchRequest(sessionID: s.id, categories: ["Music/Jazz"]))
        #expect(widened.relaxations.map(\.kind) == [.widenedCategory])
        #expect(widened.relaxations[0] == Relaxation(kind: .widenedCategory, subject: "Music/Jazz", shown: "Music"))
        #expect(widened.totalHits == 5)
        let dropped = try engine.search(
            session: s, request: SearchRequest(sessionID: s.id, filters: [.range("year", min: 2020)]))
        #expect(dropped.relaxations.map(\.kind) == [.droppedFilter])
        #expect(dropped.relaxations[0].subject == "year ≥ 2020")
        #expect(dropped.appliedFilters.isEmpty)
        #expect(dropped.totalHits == 5)
    }

    @Test func nothingAtAllOffersCategoriesToBrowse() throws {
        let s = session([Label("tuba")])
        let state = try engine.search(session: s, request: SearchRequest(sessionID: s.id))
        #expect(state.results.isEmpty)
        #expect(state.relaxations.map(\.kind) == [.browse])
        #expect(state.browseCategories == [FacetValue(value: "Music", count: 8, selected: false)])
        #expect(state.chips == [Chip(text: "tuba", selected: true, confidence: 1)])
    }

    @Test func badRefinementsAreInvalidArguments() throws {
        let s = session()
        let cases: [(SearchRequest, String)] = [
            (SearchRequest(sessionID: s.id, filters: [.anyOf("city", [])]), "filter on city has no values"),
            (
                SearchRequest(sessionID: s.id, filters: [.range("year", min: 3, max: 1)]),
                "range filter on year has min 3.0 > max 1.0"
            ),
            (SearchRequest(sessionID: s.id, filters: [.range("year")]), "range filter on year has no bounds"),
            (SearchRequest(sessionID: s.id, pageToken: "!!"), "malformed page token"),
            (SearchRequest(sessionID: s.id, pageSize: -1), "page size -1 must not be negative"),
            (
                SearchRequest(sessionID: s.id, sort: Sort(key: .attribute)),
                "sorting by attribute needs an attribute name"
            ),
        ]
        for (request, message) in cases {
            #expect(throws: SearchError(code: .invalidArgument, message: message)) {
                try engine.search(session: s, request: request)
            }
        }
        let first = try engine.search(session: s, request: SearchRequest(sessionID: s.id, pageSize: 2))
        #expect(throws: SearchError.self) {
            try engine.search(
                session: s,
                request: SearchRequest(sessionID: s.id, entityTypes: ["album"], pageToken: first.nextPageToken))
        }
    }

    @Test func numericFacetsUseBucketsAndMarkTheSelection() throws {
        let s = session()
        let state = try engine.search(
            session: s, request: SearchRequest(sessionID: s.id, filters: [.range("year", min: 1965, max: 1969)]))
        let year = try #require(state.facets.first { $0.name == "year" })
        #expect(year.kind == .number)
        #expect(year.values.contains(FacetValue(value: "1965..1969", count: 1, selected: true)))
        #expect(year.values.contains(FacetValue(value: "1955..1959", count: 1, selected: false)))
        #expect(state.appliedFilters.map(\.label) == ["year 1965–1969"])
    }
}
