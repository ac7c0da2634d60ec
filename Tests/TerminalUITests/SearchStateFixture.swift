import SearchAPI

/// A hand-made session state: two chips, type/category/city/year facets, three results, more pages.
enum SearchStateFixture {
    static func result(_ type: String, _ id: String, _ title: String, link: Bool = true) -> QueryResult {
        QueryResult(
            entity: EntityRef(type: type, id: id), title: title, subtitle: "\(type) subtitle",
            deepLink: link ? "music://\(type)/\(id)" : "", match: .text)
    }

    static func state(results: [QueryResult]? = nil, token: String = "token-1", total: UInt64 = 9) -> SearchState {
        SearchState(
            sessionID: "0123456789abcdef0123456789abcdef", queryText: "band live",
            chips: [Chip(text: "band", selected: true), Chip(text: "live", selected: true)],
            facets: [
                Facet(
                    name: "type", kind: .type,
                    values: [FacetValue(value: "artist", count: 6), FacetValue(value: "album", count: 3)]),
                Facet(
                    name: "category", kind: .category,
                    values: [FacetValue(value: "Music", count: 9), FacetValue(value: "Music/Rock", count: 4)]),
                Facet(
                    name: "city", kind: .string,
                    values: [FacetValue(value: "Vienna", count: 5), FacetValue(value: "Paris", count: 4)]),
                Facet(
                    name: "year", kind: .number,
                    values: [FacetValue(value: "1990..1999", count: 2), FacetValue(value: "2000..2009", count: 1)]),
            ],
            results: results ?? [
                result("artist", "the-blue-foxes", "The Blue Foxes"),
                result("album", "lost-letters", "Lost Letters"),
                result("concert", "1018", "The Golden Comets live in Cologne", link: false),
            ], nextPageToken: token, totalHits: total)
    }
}
