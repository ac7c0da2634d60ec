import SearchAPI

/// How search answers (sheet results and search states) read, as tables and as JSON.
enum SearchOutput {
    /// Facet values shown per facet in the table form (selected ones marked `*`); JSON has every
    /// value the server listed, and how many more it counted.
    static let facetValuesShown = 6

    // MARK: Results

    static func json(_ result: QueryResult) -> JSONValue {
        .object([
            ("type", .string(result.entity?.type ?? "")),
            ("id", .string(result.entity?.id ?? "")),
            ("title", .string(result.title)),
            ("subtitle", .string(result.subtitle)),
            ("category", .string(result.category)),
            ("deep_link", .string(result.deepLink)),
            ("match", .string(matchName(result.match))),
            ("score", .number(result.score)),
            ("distance", result.distance.map(JSONValue.number) ?? .null),
            ("matched_terms", .array(result.matchedTerms.map(JSONValue.string))),
            ("related_to", result.relatedTo.map(RouteOutput.json) ?? .null),
            ("thumbnail_url", .string(result.thumbnailURL)),
            ("image_url", .string(result.imageURL)),
        ])
    }

    /// Results as a table, best first; related results say what brought them in.
    ///
    /// The sheet numbers its rows; a search page does not, because a page token does not say
    /// where in the ranking the page starts.
    static func table(_ results: [QueryResult], numbered: Bool) -> String {
        var table = TextTable(headers: (numbered ? ["#"] : []) + ["type", "title", "subtitle", "match", "deep link"])
        table.maximumCellWidth = 40
        for (offset, result) in results.enumerated() {
            let cells = [result.entity?.type ?? "", result.title, result.subtitle, matchText(result), result.deepLink]
            table.rows.append((numbered ? [String(offset + 1)] : []) + cells)
        }
        return table.rendered
    }

    /// How a result matched, for the table: `text`, `image 0.12`, `related to album:x`.
    static func matchText(_ result: QueryResult) -> String {
        switch result.match {
        case .related: result.relatedTo.map { "related to " + RouteOutput.text($0) } ?? "related"
        case .image, .textAndImage:
            matchName(result.match) + (result.distance.map { " " + String(format: $0) } ?? "")
        default: matchName(result.match)
        }
    }

    static func matchName(_ kind: MatchKind) -> String {
        switch kind {
        case .text: "text"
        case .image: "image"
        case .textAndImage: "text+image"
        case .related: "related"
        case .unspecified: "unspecified"
        case .unrecognized(let value): "unrecognized(\(value))"
        }
    }

    // MARK: Search states

    static func json(_ state: SearchState) -> JSONValue {
        .object([
            ("session_id", .string(state.sessionID)),
            ("query_text", .string(state.queryText)),
            (
                "chips",
                .array(state.chips.map { .object([("text", .string($0.text)), ("selected", .bool($0.selected))]) })
            ),
            ("facets", .array(state.facets.map(json))),
            ("more_facets", .array(state.moreFacets.map(JSONValue.string))),
            ("applied_filters", .array(state.appliedFilters.map { .string($0.label) })),
            ("sort", .string(sortText(state.sort))),
            ("relaxations", .array(state.relaxations.map { .string($0.explanation) })),
            ("browse_categories", .array(state.browseCategories.map(json))),
            ("total_hits", .int(Int64(clamping: state.totalHits))),
            ("results", .array(state.results.map(json))),
            ("next_page_token", .string(state.nextPageToken)),
            ("expires_at_unix_ms", .int(state.expiresAtUnixMs)),
        ])
    }

    /// The filled-in search screen: the query and chips, what is in force, the facets with
    /// counts, this page's results and how to get the next.
    static func text(_ state: SearchState) -> String {
        var fields = FieldList()
        fields.append("session", state.sessionID)
        fields.append("query", state.queryText)
        fields.append(
            "chips", state.chips.map { ($0.selected ? "[x] " : "[ ] ") + $0.text }.joined(separator: "  "))
        fields.append("sort", sortText(state.sort))
        if !state.appliedFilters.isEmpty {
            fields.append("filters", state.appliedFilters.map(\.label).joined(separator: "; "))
        }
        for relaxation in state.relaxations {
            fields.append("relaxed", relaxation.explanation)
        }
        fields.append("total hits", String(state.totalHits))
        fields.append("next page", state.nextPageToken.isEmpty ? "(last page)" : state.nextPageToken)
        var sections = [fields.rendered]

        var facets = TextTable("facet", "values (hits)")
        facets.maximumCellWidth = 100
        for facet in state.facets {
            var values = facet.values.prefix(facetValuesShown).map {
                ($0.selected ? "*" : "") + "\($0.value) \($0.count)"
            }
            let more = max(0, facet.values.count - facetValuesShown) + Int(facet.moreValues)
            if more > 0 { values.append("+\(more) more") }
            facets.append(facet.name, values.joined(separator: " · "))
        }
        if !state.moreFacets.isEmpty {
            facets.append("more facets", state.moreFacets.joined(separator: " · ") + " (search --facet NAME)")
        }
        if !facets.rows.isEmpty { sections.append(facets.rendered) }
        if !state.browseCategories.isEmpty {
            var browse = TextTable("browse category", "count")
            for value in state.browseCategories { browse.append(value.value, String(value.count)) }
            sections.append(browse.rendered)
        }
        sections.append(state.results.isEmpty ? "no results" : table(state.results, numbered: false))
        return sections.joined(separator: "\n\n")
    }

    static func json(_ facet: Facet) -> JSONValue {
        .object([
            ("name", .string(facet.name)), ("values", .array(facet.values.map(json))),
            ("more_values", .int(Int64(facet.moreValues))),
        ])
    }

    static func json(_ value: FacetValue) -> JSONValue {
        .object([
            ("value", .string(value.value)), ("count", .int(Int64(clamping: value.count))),
            ("selected", .bool(value.selected)),
        ])
    }

    /// `relevance`, `title`, `title:desc`, `year:asc`: the spelling `--sort` takes.
    static func sortText(_ sort: Sort?) -> String {
        guard let sort else { return "relevance" }
        switch sort.key {
        case .relevance: return "relevance"
        case .title: return sort.descending ? "title:desc" : "title"
        case .attribute: return sort.attribute + (sort.descending ? ":desc" : ":asc")
        case .unrecognized(let value): return "unrecognized(\(value))"
        }
    }
}

extension String {
    /// A float with three decimals, for distances in tables.
    fileprivate init(format value: Float) {
        let thousandths = Int((Double(value) * 1000).rounded())
        let fraction = String(abs(thousandths) % 1000)
        self =
            (thousandths < 0 ? "-" : "") + "\(abs(thousandths) / 1000)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
