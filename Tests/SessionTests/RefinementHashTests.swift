import Testing

@testable import SearchSession

/// A page token names its refinement by hash: refinements that differ in anything that changes
/// the hits or their order hash apart; ones that differ only in spelling hash alike.
@Suite struct RefinementHashTests {
    static func request(_ change: (inout SearchRequest) -> Void) -> SearchRequest {
        var r = SearchRequest(sessionID: "s")
        change(&r)
        return r
    }

    static let distinct: [SearchRequest] = [
        request { _ in },
        request { $0.query = "" },
        request { $0.query = "jazz" },
        request { $0.query = "jazz rock" },
        request { $0.disabledLabels = ["jazz"] },
        request { $0.disabledLabels = ["jazz", "rock"] },
        request { $0.entityTypes = ["album"] },
        request { $0.entityTypes = ["album", "track"] },
        request { $0.categories = ["Music"] },
        request { $0.categories = ["Music/Rock"] },
        request { $0.filters = [.anyOf("city", ["Oslo"])] },
        request { $0.filters = [.anyOf("city", ["Oslo", "Bergen"])] },
        request { $0.filters = [.anyOf("town", ["Oslo"])] },
        request { $0.filters = [.range("year", min: 1990)] },
        request { $0.filters = [.range("year", max: 1990)] },
        request { $0.filters = [.range("year", min: 1990, max: 1999)] },
        request { $0.filters = [.range("year", min: 1990), .range("price", max: 10)] },
        request { $0.filterExpression = .filter(.anyOf("city", ["Oslo"])) },
        request { $0.filterExpression = .not(.filter(.anyOf("city", ["Oslo"]))) },
        request { $0.filterExpression = .all([.filter(.anyOf("city", ["Oslo"]))]) },
        request { $0.filterExpression = .any([.filter(.anyOf("city", ["Oslo"]))]) },
        request { $0.filterExpression = .all([]) },
        request { $0.sort = Sort(key: .title) },
        request { $0.sort = Sort(key: .title, descending: true) },
        request { $0.sort = Sort(key: .attribute, attribute: "year") },
        request { $0.sort = Sort(key: .attribute, attribute: "price") },
        // A string boundary moved: lengths keep these apart.
        request { $0.disabledLabels = ["ab", "c"] },
        request { $0.disabledLabels = ["a", "bc"] },
    ]

    @Test func refinementsThatChangeTheHitsHashApart() {
        let hashes = Self.distinct.map { refinementHash(session: "s", $0) }
        #expect(Set(hashes).count == hashes.count)
        #expect(refinementHash(session: "s", Self.distinct[0]) != refinementHash(session: "t", Self.distinct[0]))
    }

    @Test func refinementsThatDifferOnlyInSpellingHashAlike() {
        let pairs: [(SearchRequest, SearchRequest)] = [
            (
                Self.request { $0.disabledLabels = ["rock", "jazz"] },
                Self.request { $0.disabledLabels = ["jazz", "rock"] }
            ),
            (
                Self.request { $0.entityTypes = ["track", "album"] },
                Self.request { $0.entityTypes = ["album", "track"] }
            ),
            (Self.request { $0.categories = ["Music/Rock/"] }, Self.request { $0.categories = ["Music/Rock"] }),
            (Self.request { $0.pageSize = 50 }, Self.request { $0.pageSize = 10 }),
        ]
        for (a, b) in pairs { #expect(refinementHash(session: "s", a) == refinementHash(session: "s", b)) }
    }
}
