import SearchAPI
import SearchSession

// Search-library results → API messages.

extension SearchAPI.EntityRef {
    init(_ ref: SearchSession.EntityRef) {
        self.init(type: ref.type, id: ref.id)
    }
}

extension SearchAPI.QueryResult {
    init(_ result: SearchSession.QueryResult) {
        self.init(
            entity: SearchAPI.EntityRef(result.entity), title: result.title, subtitle: result.subtitle,
            thumbnailURL: result.thumbnailURL, imageURL: result.imageURL, deepLink: result.deepLink,
            score: result.score, match: SearchAPI.MatchKind(result.match), distance: result.distance,
            matchedTerms: result.matchedTerms, relatedTo: result.relatedTo.map(SearchAPI.EntityRef.init),
            category: result.category)
    }
}

extension SearchAPI.MatchKind {
    init(_ kind: SearchSession.MatchKind) {
        switch kind {
        case .text: self = .text
        case .image: self = .image
        case .textAndImage: self = .textAndImage
        case .related: self = .related
        }
    }
}

extension SearchAPI.SearchState {
    init(_ state: SearchSession.SearchState) {
        self.init(
            sessionID: state.sessionID, queryText: state.queryText,
            chips: state.chips.map { SearchAPI.Chip(text: $0.text, selected: $0.selected, confidence: $0.confidence) },
            facets: state.facets.map(SearchAPI.Facet.init),
            appliedFilters: state.appliedFilters.map {
                SearchAPI.AppliedFilter(filter: SearchAPI.AttributeFilter($0.filter), label: $0.label)
            },
            results: state.results.map(SearchAPI.QueryResult.init), nextPageToken: state.nextPageToken,
            totalHits: UInt64(state.totalHits), relaxations: state.relaxations.map(SearchAPI.Relaxation.init),
            expiresAtUnixMs: state.expiresAtUnixMs, sort: SearchAPI.Sort(state.sort),
            browseCategories: state.browseCategories.map(SearchAPI.FacetValue.init),
            source: SearchAPI.Source(state.source), locale: state.locale, moreFacets: state.moreFacets)
    }
}

extension SearchAPI.Facet {
    init(_ facet: SearchSession.Facet) {
        let kind: SearchAPI.FacetKind =
            switch facet.kind {
            case .type: .type
            case .category: .category
            case .string: .string
            case .number: .number
            }
        self.init(
            name: facet.name, kind: kind, values: facet.values.map(SearchAPI.FacetValue.init),
            moreValues: UInt32(clamping: facet.moreValues))
    }
}

extension SearchAPI.FacetValue {
    init(_ value: SearchSession.FacetValue) {
        self.init(value: value.value, count: UInt64(value.count), selected: value.selected)
    }
}

extension SearchAPI.AttributeFilter {
    init(_ filter: SearchSession.AttributeFilter) {
        switch filter.condition {
        case .anyOf(let values):
            self.init(attribute: filter.attribute, condition: .anyOf(SearchAPI.ValueSet(values: values)))
        case .range(let min, let max):
            self.init(attribute: filter.attribute, condition: .range(SearchAPI.NumberRange(min: min, max: max)))
        }
    }
}

extension SearchAPI.Relaxation {
    init(_ relaxation: SearchSession.Relaxation) {
        let kind: SearchAPI.RelaxationKind =
            switch relaxation.kind {
            case .droppedLabel: .droppedLabel
            case .widenedCategory: .widenedCategory
            case .droppedFilter: .droppedFilter
            case .browse: .browse
            }
        self.init(kind: kind, subject: relaxation.subject, explanation: Self.explanation(relaxation))
    }

    /// The sentence a person reads: the engine says what it relaxed, the service words it.
    static func explanation(_ relaxation: SearchSession.Relaxation) -> String {
        switch relaxation.kind {
        case .droppedLabel:
            "No results for “\(relaxation.searched)”; showing “\(relaxation.shown)”."
        case .widenedCategory:
            relaxation.shown.isEmpty
                ? "No results in “\(relaxation.subject)”; showing all categories."
                : "No results in “\(relaxation.subject)”; showing “\(relaxation.shown)”."
        case .droppedFilter:
            "No results with \(relaxation.subject); showing results without filters."
        case .browse:
            relaxation.subject.isEmpty
                ? "Nothing matches; browse the catalog’s categories instead."
                : "Nothing in the catalog matches “\(relaxation.subject)”; browse its categories instead."
        }
    }
}

extension SearchAPI.Sort {
    init(_ sort: SearchSession.Sort) {
        let key: SearchAPI.SortKey =
            switch sort.key {
            case .relevance: .relevance
            case .attribute: .attribute
            case .title: .title
            }
        self.init(key: key, attribute: sort.attribute, descending: sort.descending)
    }
}

extension SearchAPI.Source {
    init(_ source: SearchSession.Source) {
        switch source {
        case .camera: self = .camera
        case .screenshot: self = .screenshot
        case .unspecified: self = .unspecified
        }
    }
}

extension SearchAPI.CatalogUpdateResponse {
    init(_ update: SearchSession.CatalogUpdate) {
        self.init(
            applied: UInt32(clamping: update.applied), catalogVersion: update.catalogVersion,
            errors: update.errors.map {
                SearchAPI.EntityError(
                    index: UInt32(clamping: $0.index), entity: SearchAPI.EntityRef($0.entity), message: $0.message)
            })
    }
}
