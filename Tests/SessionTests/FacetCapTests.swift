import Testing

@testable import SearchSession

/// A search lists the attribute facets whose values count the most hits, up to a cap, names the
/// ones it left out, and always lists those with a selection or that the request includes.
@Suite struct FacetCapTests {
    /// 30 attributes over 120 lamps: `a00` on all of them, each next one on four fewer (`a29` on
    /// four), so the more hits an attribute counts, the lower its number.
    static let entities: [Entity] = (0..<120).map { lamp in
        var attributes: [String: AttributeValue] = [:]
        for attribute in 0..<30 where lamp < (30 - attribute) * 4 {
            attributes[name(attribute)] = .string("v")
        }
        return Entity(type: "product", id: "p\(lamp)", title: "lamp \(lamp)", attributes: attributes)
    }

    static func name(_ attribute: Int) -> String { attribute < 10 ? "a0\(attribute)" : "a\(attribute)" }

    static func names(_ attributes: some Sequence<Int>) -> [String] { attributes.map(name) }

    static let session = SessionRecord(
        id: "s", labels: [Label("lamp")], prints: [], source: .camera, locale: "", pageSize: 10,
        createdAtUnixMs: 0, expiresAtUnixMs: .max)

    static let engine = SearchEngine(entities: entities)

    /// The attribute facets' names, in the order listed (type and category come first).
    func attributeFacets(_ state: SearchState) -> [String] {
        #expect(state.facets.prefix(2).map(\.name) == ["type", "category"])
        return state.facets.dropFirst(2).map(\.name)
    }

    @Test func theDefaultListsTheTwentyThatCountTheMostHits() throws {
        let state = try Self.engine.search(session: Self.session, request: SearchRequest(sessionID: "s"))
        #expect(SearchEngine.defaultFacets == 20)
        #expect(attributeFacets(state) == Self.names(0..<20))
        #expect(state.moreFacets == Self.names(20..<30))
    }

    @Test(arguments: [1, 5, 29, 30, 1_000])
    func aRequestedCapListsThatMany(cap: Int) throws {
        let state = try Self.engine.search(
            session: Self.session, request: SearchRequest(sessionID: "s", maxFacets: cap))
        #expect(attributeFacets(state) == Self.names(0..<min(cap, 30)))
        #expect(state.moreFacets == Self.names(min(cap, 30)..<30))
    }

    @Test func aSelectedFacetTakesAPlaceFirst() throws {
        // Lamps with a25 (the first 20) have a00 to a25, each counting 20 hits: ties go by name.
        let request = SearchRequest(sessionID: "s", filters: [.anyOf("a25", ["v"])], maxFacets: 5)
        let state = try Self.engine.search(session: Self.session, request: request)
        #expect(attributeFacets(state) == Self.names(0..<4) + ["a25"])
        #expect(state.facets.last?.values == [FacetValue(value: "v", count: 20, selected: true)])
        // a26 to a29 are on 16, 12, 8 and 4 of them.
        #expect(state.moreFacets == Self.names(4..<25) + Self.names(26..<30))
        #expect(state.totalHits == 20)
    }

    @Test func selectedFacetsAreListedBeyondTheCap() throws {
        let request = SearchRequest(
            sessionID: "s", filters: [.anyOf("a01", ["v"]), .anyOf("a02", ["v"])], maxFacets: 1)
        let state = try Self.engine.search(session: Self.session, request: request)
        #expect(attributeFacets(state) == ["a01", "a02"])
        #expect(state.moreFacets == ["a00"] + Self.names(3..<30))
    }

    @Test func anIncludedFacetIsListedWhateverItCounts() throws {
        let request = SearchRequest(sessionID: "s", maxFacets: 2, includedFacets: ["a29", "absent"])
        let state = try Self.engine.search(session: Self.session, request: request)
        #expect(attributeFacets(state) == ["a00", "a29"])
        #expect(state.facets.last?.values == [FacetValue(value: "v", count: 4, selected: false)])
        #expect(state.moreFacets == Self.names(1..<29))
    }

    @Test func anotherCapIsAnotherEvaluationAndPagesKeepTheirs() throws {
        // The evaluation cache keeps a first page's facets for its next pages: a request with
        // another cap must not be answered from them.
        let engine = SearchEngine(entities: Self.entities)
        let five = try engine.search(session: Self.session, request: SearchRequest(sessionID: "s", maxFacets: 5))
        let seven = try engine.search(session: Self.session, request: SearchRequest(sessionID: "s", maxFacets: 7))
        #expect(attributeFacets(five).count == 5)
        #expect(attributeFacets(seven).count == 7)
        let included = try engine.search(
            session: Self.session, request: SearchRequest(sessionID: "s", maxFacets: 5, includedFacets: ["a29"]))
        #expect(attributeFacets(included) == Self.names(0..<4) + ["a29"])
        let second = try engine.search(
            session: Self.session,
            request: SearchRequest(sessionID: "s", pageToken: five.nextPageToken, maxFacets: 5))
        #expect(second.facets == five.facets)
        #expect(second.moreFacets == five.moreFacets)
        #expect(Set(second.results.map(\.entity)).isDisjoint(with: five.results.map(\.entity)))
    }

    @Test func whatCountsIsTheHitsTheListedValuesCount() {
        // A serial number on every lamp lists ten values of one hit each; a colour on half of
        // them lists its three values, sixty hits in all: the colour is the facet worth a place.
        let lamps = (0..<120).map { lamp in
            Entity(
                type: "product", id: "p\(lamp)", title: "lamp \(lamp)",
                attributes: ["serial": .string("S-\(lamp)")].merging(
                    lamp % 2 == 0 ? ["colour": .string(["red", "green", "blue"][lamp % 3])] : [:]
                ) { a, _ in a })
        }
        let engine = SearchEngine(entities: lamps)
        let state = try? engine.search(
            session: Self.session, request: SearchRequest(sessionID: "s", maxFacetValues: 10, maxFacets: 1))
        #expect(state.map(attributeFacets) == ["colour"])
        #expect(state?.moreFacets == ["serial"])
    }

    @Test func theLargestSumIsWhatSortingSays() {
        var rng = SplitMix64(state: 3)
        for _ in 0..<300 {
            let numbers = (0..<Int.random(in: 0...60, using: &rng)).map { _ in Int.random(in: 1...9, using: &rng) }
            let limit = Int.random(in: 0...70, using: &rng)
            #expect(SearchEngine.largestSum(numbers, limit) == numbers.sorted(by: >).prefix(limit).reduce(0, +))
        }
    }

    @Test func aNegativeCapIsRejected() {
        #expect(throws: SearchError.self) {
            try Self.engine.search(session: Self.session, request: SearchRequest(sessionID: "s", maxFacets: -1))
        }
    }
}
