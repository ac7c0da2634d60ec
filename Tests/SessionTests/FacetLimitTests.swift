import Testing

@testable import SearchSession

/// A facet lists its first values by count and says how many more it counted; selected values
/// are listed whatever their place.
@Suite struct FacetLimitTests {
    /// 150 brands: brand k is on `k % 7 + 1` entities, so counts tie and ties go by value.
    static let entities: [Entity] = (0..<150).flatMap { brand in
        (0...(brand % 7)).map { copy in
            Entity(
                type: "product", id: "p\(brand)-\(copy)", title: "lamp \(brand) \(copy)",
                attributes: ["brand": .string("brand \(brand)")])
        }
    }

    /// Every brand with its count, in the order a facet lists them.
    static let allBrands: [FacetValue] = (0..<150).map {
        FacetValue(value: "brand \($0)", count: $0 % 7 + 1, selected: false)
    }.sorted(by: SearchEngine.facetOrder)

    static let session = SessionRecord(
        id: "s", labels: [Label("lamp")], prints: [], source: .camera, locale: "", pageSize: 10,
        createdAtUnixMs: 0, expiresAtUnixMs: .max)

    func brandFacet(_ request: SearchRequest) throws -> Facet {
        let engine = SearchEngine(entities: Self.entities)
        let state = try engine.search(session: Self.session, request: request)
        return try #require(state.facets.first { $0.name == "brand" })
    }

    @Test func theDefaultListsAHundredValuesAndCountsTheRest() throws {
        let facet = try brandFacet(SearchRequest(sessionID: "s"))
        #expect(facet.values == Array(Self.allBrands.prefix(SearchEngine.defaultFacetValues)))
        #expect(facet.moreValues == 150 - SearchEngine.defaultFacetValues)
    }

    @Test(arguments: [1, 10, 149, 150, 500])
    func aRequestedLimitListsThatManyInOrder(limit: Int) throws {
        let facet = try brandFacet(SearchRequest(sessionID: "s", maxFacetValues: limit))
        #expect(facet.values == Array(Self.allBrands.prefix(limit)))
        #expect(facet.moreValues == max(0, 150 - limit))
    }

    @Test func aSelectedValueBeyondTheLimitIsListedAfterTheOthers() throws {
        // "brand 0" has one entity: far below the first ten.
        let facet = try brandFacet(
            SearchRequest(sessionID: "s", filters: [.anyOf("brand", ["brand 0"])], maxFacetValues: 10))
        // Disjunctive: the brand facet ignores its own filter, so the counts are the unfiltered ones.
        #expect(Array(facet.values.prefix(10)) == Array(Self.allBrands.prefix(10)))
        #expect(facet.values.count == 11)
        #expect(facet.values.last == FacetValue(value: "brand 0", count: 1, selected: true))
        #expect(facet.moreValues == 150 - 11)
    }

    @Test func aNegativeLimitIsRejected() throws {
        let engine = SearchEngine(entities: Self.entities)
        #expect(throws: SearchError.self) {
            try engine.search(session: Self.session, request: SearchRequest(sessionID: "s", maxFacetValues: -1))
        }
    }

    @Test func theFirstValuesOfAWideFacetAreWhatSortingSays() {
        // Wide facets of narrow hit sets: most values tie at the limit's count, and the ties are
        // sifted rather than sorted; the outcome must be the sorted list's first values.
        var rng = SplitMix64(state: 11)
        for _ in 0..<200 {
            let values = (0..<Int.random(in: 1...400, using: &rng)).map { index in
                FacetValue(
                    value: "street \(Int.random(in: 0...99, using: &rng)) \(index)",
                    count: Int.random(in: 1...3, using: &rng), selected: false)
            }.shuffled(using: &rng)
            let limit = Int.random(in: 1...120, using: &rng)
            let (shown, more) = SearchEngine.ordered(values, selected: [], limit: limit)
            #expect(shown == Array(values.sorted(by: SearchEngine.facetOrder).prefix(limit)))
            #expect(more == max(0, values.count - limit))
        }
    }

    @Test func theKthLargestIsWhatSortingSays() {
        var rng = SplitMix64(state: 5)
        for _ in 0..<300 {
            let numbers = (0..<Int.random(in: 1...60, using: &rng)).map { _ in Int.random(in: 0...9, using: &rng) }
            let k = Int.random(in: 1...numbers.count, using: &rng)
            var scratch = numbers
            #expect(SearchEngine.kthLargest(&scratch, k) == numbers.sorted(by: >)[k - 1], "\(numbers) k \(k)")
        }
    }

    @Test func theShowableValuesAreThoseCountedAtLeastAsOftenAsTheLimitth() {
        // Several facets' values grouped or interleaved, counts small and large (past the
        // histogram's last bin), some facets keeping every counted value.
        var rng = SplitMix64(state: 23)
        for round in 0..<200 {
            let facets = Int.random(in: 1...6, using: &rng)
            let largest = round % 3 == 0 ? 2_000 : 12
            // A quarter of the values uncounted, or nearly all (long runs of them are skipped whole).
            let uncounted = round % 2 == 0 ? 0.25 : 0.97
            let counts = (0..<Int.random(in: 0...900, using: &rng)).map { _ in
                Double.random(in: 0..<1, using: &rng) < uncounted
                    ? 0 : Int32.random(in: 1...Int32(largest), using: &rng)
            }
            var facetOf = counts.map { _ in Int32.random(in: 0..<Int32(facets), using: &rng) }
            if round % 4 < 2 {
                // As a snapshot numbers them: a run per facet (long ones, read eight at a time),
                // then a tail of values later writes brought, facets mixed.
                facetOf[..<(facetOf.count * 9 / 10)].sort()
            }
            let keepsAll = (0..<facets).map { _ in Int.random(in: 0...4, using: &rng) == 0 }
            let limit = Int.random(in: 1...150, using: &rng)
            let showable = ShowableFacetValues(
                counts, runs: ValueRuns(facetOf), facets: facets, limit: limit, keepsAll: keepsAll)
            // Collecting some facets only: the others list nothing, the rest the same.
            let wanted = (0..<facets).map { _ in Bool.random(using: &rng) }
            let some = ShowableFacetValues(
                counts, runs: ValueRuns(facetOf), facets: facets, limit: limit, keepsAll: keepsAll
            ) { weights, counted in
                #expect(weights == showable.weights && counted == showable.counted)
                return wanted
            }
            for facet in 0..<facets {
                let values = counts.indices.filter { facetOf[$0] == Int32(facet) && counts[$0] > 0 }
                #expect(showable.counted[facet] == values.count)
                // The weight: the sum of its `limit` largest counts.
                let largest = values.map { Int(counts[$0]) }.sorted(by: >).prefix(limit).reduce(0, +)
                #expect(showable.weights[facet] == largest, "round \(round) facet \(facet)")
                #expect(Array(some.values(of: facet)) == (wanted[facet] ? Array(showable.values(of: facet)) : []))
                var threshold: Int32 = 1
                if !keepsAll[facet] && values.count > limit {
                    threshold = values.map { counts[$0] }.sorted(by: >)[limit - 1]
                }
                let expected = values.filter { counts[$0] >= threshold }.map(Int32.init)
                #expect(Array(showable.values(of: facet)) == expected, "round \(round) facet \(facet)")
            }
        }
    }
}
