extension SearchEngine {
    /// The default and largest page sizes of a session.
    public static let defaultPageSize = 20
    /// The largest page size.
    public static let maximumPageSize = 100

    /// Runs a refinement of a session: the full search state for one page.
    ///
    /// Matching: every selected chip (label) and the free text must match (all their terms, any
    /// field); the session's prints add image matches within the model's default distance (the
    /// nearest ``searchImageCandidates`` at most); text and image are fused. With neither text nor
    /// image, every entity is a hit. Then entity types,
    /// categories (with descendants), attribute filters and the filter expression apply.
    ///
    /// When that finds nothing, it relaxes, in order, and says so: drop the weakest selected label
    /// (repeatedly while more than one is left), widen the categories to their parents, drop the
    /// attribute filters; if the catalog still has nothing, the state offers categories to browse.
    ///
    /// Facets count the hits before filtering by each facet's own selection (disjunctive), but
    /// after every other facet's selection and the filter expression.
    ///
    /// A page token names its snapshot version, so every page of one refinement is cut from the
    /// same ranking: no repeats, no skips, the same total, while the catalog changes.
    ///
    /// - Parameters:
    ///   - session: The captured session.
    ///   - request: The whole refinement and the page token.
    ///   - linker: Gives results their canonical deep links (cached per snapshot); without one,
    ///     results carry the catalog's own links.
    /// - Returns: The search state.
    /// - Throws: ``SearchError/Code/invalidArgument`` for a bad filter, page size or page token;
    ///   ``SearchError/Code/catalogChanged`` for a token whose snapshot is no longer retained.
    public func search(
        session: SessionRecord, request: SearchRequest, linker: EntityLinker? = nil
    ) throws(SearchError) -> SearchState {
        if request.pageSize < 0 { throw .invalid("page size \(request.pageSize) must not be negative") }
        let pageSize = min(
            request.pageSize > 0 ? request.pageSize : (session.pageSize > 0 ? session.pageSize : Self.defaultPageSize),
            Self.maximumPageSize)
        for f in request.filters { try f.validate() }
        try request.filterExpression?.validate()
        if request.sort.key == .attribute && request.sort.attribute.isEmpty {
            throw .invalid("sorting by attribute needs an attribute name")
        }
        let hash = refinementHash(session: session.id, request)
        let s: CatalogSnapshot
        var offset = 0
        if request.pageToken.isEmpty {
            s = snapshot
        } else {
            let token = try PageToken(decoding: request.pageToken)
            guard token.refinementHash == hash else {
                throw .invalid("page token belongs to a different refinement; send the same refinement or start over")
            }
            guard let pinned = snapshot(version: token.version) else {
                throw SearchError(
                    code: .catalogChanged,
                    message: "the catalog changed since this page token (version \(token.version) is no longer kept); "
                        + "start again from page 1")
            }
            s = pinned
            offset = token.offset
        }
        let evaluation = evaluate(
            s, session: session, request: request,
            needed: offset.addingReportingOverflow(pageSize).overflow
                ? .max : offset + pageSize)
        let total = evaluation.total
        let page = evaluation.hits.dropFirst(offset).prefix(pageSize)
        let several = total > 1
        let groups = evaluation.groups
        let usable = Ranker.usableGroups(groups)
        let links = Self.links(page.map(\.doc), in: s, linker: linker)
        let results = s.entities.withUnsafeBufferPointer { entities in
            zip(page, links).map { c, link in
                Self.result(
                    entities[Int(c.doc)], candidate: c.textScore == nil && c.distance == nil ? nil : c,
                    score: c.score, parent: nil,
                    matchedTerms: Ranker.matchedTerms(c.matchedGroups, groups: groups, usable: usable),
                    locale: session.locale, several: several, link: link)
            }
        }
        let next = offset + page.count
        return SearchState(
            sessionID: session.id, queryText: evaluation.queryText, chips: evaluation.chips, facets: evaluation.facets,
            appliedFilters: evaluation.filters.map { AppliedFilter(filter: $0, label: $0.label) }, results: results,
            nextPageToken: next < total
                ? PageToken(version: s.version, offset: next, refinementHash: hash).encoded : "",
            totalHits: total, relaxations: evaluation.relaxations, expiresAtUnixMs: session.expiresAtUnixMs,
            sort: request.sort, browseCategories: evaluation.browse, source: session.source, locale: session.locale,
            catalogVersion: s.version)
    }

    struct Evaluation {
        var queryText: String
        var chips: [Chip]
        var groups: [TextGroup]
        /// The hits in their final order, at least the first `needed` of them.
        var hits: [Candidate]
        /// How many hits there are in all.
        var total: Int
        var facets: [Facet]
        var filters: [AttributeFilter]
        var relaxations: [Relaxation]
        var browse: [FacetValue]
    }

    /// Everything but the page cut: deterministic for a snapshot, a session and a refinement.
    ///
    /// Candidates stay in document order until the facets are counted (the facet index is then
    /// read front to back instead of at random); only the first `needed` hits are put in order
    /// when sorting by relevance.
    func evaluate(
        _ s: CatalogSnapshot, session: SessionRecord, request r: SearchRequest, needed: Int = .max
    ) -> Evaluation {
        let disabled = Set(r.disabledLabels.map { Analyzer.tokens($0).joined(separator: " ") })
        var chips = session.labels.map { l in
            Chip(
                text: l.text, selected: !disabled.contains(Analyzer.tokens(l.text).joined(separator: " ")),
                confidence: l.confidence)
        }
        let queryText = r.query ?? session.queryText
        let freeText = s.analyzer.terms(queryText)
        var constraints = Constraints(
            types: Set(r.entityTypes), categories: r.categories.map(normalizeCategory).filter { !$0.isEmpty },
            filters: r.filters, expression: r.filterExpression)
        var relaxations = [Relaxation]()

        func groups() -> [TextGroup] {
            var g = [TextGroup]()
            for (i, l) in session.labels.enumerated() where chips[i].selected {
                g.append(TextGroup(display: l.text, terms: s.analyzer.terms(l.text), weight: l.weight))
            }
            if !freeText.isEmpty { g.append(TextGroup(display: queryText, terms: freeText, weight: 1)) }
            return g
        }
        func base(_ g: [TextGroup]) -> [Candidate] {
            Ranker.rank(
                s, groups: g, mode: .all, prints: session.prints, maxDistance: nil,
                imageLimit: Self.searchImageCandidates, ordered: false)
                ?? s.entities.indices.map {
                    Candidate(doc: Int32($0), exact: false, score: 0, textScore: nil, distance: nil, matchedGroups: 0)
                }
        }

        var g = groups()
        var candidates = base(g)
        var hits = constraints.filter(candidates, in: s)
        var browse = [FacetValue]()
        while hits.isEmpty {
            let selected = chips.indices.filter { chips[$0].selected && !s.analyzer.terms(chips[$0].text).isEmpty }
            if selected.count > 1 {
                let before = selected.map { chips[$0].text }.joined(separator: " ")
                // The weakest: lowest confidence; among equals, the last (labels come most confident first).
                let weakest = selected.min {
                    let a = session.labels[$0].weight
                    let b = session.labels[$1].weight
                    return a != b ? a < b : $0 > $1
                }!
                chips[weakest].selected = false
                let after = chips.filter(\.selected).map(\.text).joined(separator: " ")
                relaxations.append(
                    Relaxation(
                        kind: .droppedLabel, subject: chips[weakest].text,
                        explanation: "No results for “\(before)”; showing “\(after)”."))
                g = groups()
                candidates = base(g)
            } else if !constraints.categories.isEmpty {
                let old = constraints.categories
                constraints.categories = Array(Set(old.compactMap(parentCategory))).sorted()
                for c in old {
                    let parent = parentCategory(c)
                    relaxations.append(
                        Relaxation(
                            kind: .widenedCategory, subject: c,
                            explanation: parent.map { "No results in “\(c)”; showing “\($0)”." }
                                ?? "No results in “\(c)”; showing all categories."))
                }
            } else if !constraints.filters.isEmpty || constraints.expression != nil {
                let labels =
                    constraints.filters.map(\.label) + (constraints.expression == nil ? [] : ["the filter expression"])
                constraints.filters = []
                constraints.expression = nil
                relaxations.append(
                    Relaxation(
                        kind: .droppedFilter, subject: labels.joined(separator: ", "),
                        explanation:
                            "No results with \(labels.joined(separator: ", ")); showing results without filters."))
            } else {
                let what = g.map(\.display).joined(separator: " ")
                relaxations.append(
                    Relaxation(
                        kind: .browse, subject: what,
                        explanation: what.isEmpty
                            ? "Nothing matches; browse the catalog’s categories instead."
                            : "Nothing in the catalog matches “\(what)”; browse its categories instead."))
                browse = Self.topCategories(s)
                break
            }
            hits = constraints.filter(candidates, in: s)
        }
        let facets = Self.facets(s, candidates: candidates, constraints: constraints, request: r)
        let total = hits.count
        if r.sort.key == .relevance {
            hits = Ranker.top(hits, needed)
        } else {
            hits = Self.sort(Ranker.sorted(hits), in: s, by: r.sort, locale: session.locale)
        }
        return Evaluation(
            queryText: queryText, chips: chips, groups: g, hits: hits, total: total, facets: facets,
            filters: constraints.filters, relaxations: relaxations, browse: browse)
    }

    static func topCategories(_ s: CatalogSnapshot) -> [FacetValue] {
        var counts = [String: Int]()
        for e in s.entities {
            guard let top = e.category.split(separator: "/").first else { continue }
            counts[String(top), default: 0] += 1
        }
        return counts.map { FacetValue(value: $0.key, count: $0.value, selected: false) }.sorted(by: facetOrder)
    }

    static func facetOrder(_ a: FacetValue, _ b: FacetValue) -> Bool {
        a.count != b.count ? a.count > b.count : a.value < b.value
    }

    static func sort(_ hits: [Candidate], in s: CatalogSnapshot, by sort: Sort, locale: String) -> [Candidate] {
        switch sort.key {
        case .relevance:
            return hits  // already best first, ties by document number
        case .title:
            let keys = hits.map {
                Analyzer.tokens(s.entities[Int($0.doc)].display(locale: locale).title).joined(separator: " ")
            }
            let order = hits.indices.sorted {
                if keys[$0] != keys[$1] { return sort.descending ? keys[$0] > keys[$1] : keys[$0] < keys[$1] }
                return $0 < $1
            }
            return order.map { hits[$0] }
        case .attribute:
            let values = hits.map { s.entities[Int($0.doc)].attributes[sort.attribute] }
            let order = hits.indices.sorted { i, j in
                switch (values[i], values[j]) {
                case (nil, nil): return i < j
                case (nil, _): return false
                case (_, nil): return true
                case (let a?, let b?):
                    if a == b { return i < j }
                    let less: Bool
                    switch (a, b) {
                    case (.number(let x), .number(let y)): less = x < y
                    case (.string(let x), .string(let y)): less = x < y
                    case (.number, .string): less = true
                    case (.string, .number): less = false
                    }
                    return sort.descending ? !less : less
                }
            }
            return order.map { hits[$0] }
        }
    }
}

/// `Music/Rock` → `Music`; a top-level category has no parent.
func parentCategory(_ c: String) -> String? {
    guard let slash = c.lastIndex(of: "/") else { return nil }
    return String(c[..<slash])
}

/// The facet-bearing constraints of a refinement.
struct Constraints {
    var types: Set<String>
    var categories: [String]
    var filters: [AttributeFilter]
    var expression: FilterExpression?

    /// Whether nothing is constrained (the first page of a capture): every candidate passes.
    var isEmpty: Bool { types.isEmpty && categories.isEmpty && filters.isEmpty && expression == nil }

    /// Whether a category passes the category selection (a selected category or a descendant).
    func passesCategory(_ category: String) -> Bool {
        categories.isEmpty || categories.contains { categoryMatches(category, $0) }
    }

    /// The candidates whose entities pass every constraint, in order.
    ///
    /// Entities are read field by field in place: a whole-entity copy per candidate (retaining
    /// every field) cost more than the checks themselves.
    func filter(_ candidates: [Candidate], in s: CatalogSnapshot) -> [Candidate] {
        if isEmpty { return candidates }
        let index = s.facetIndex
        let allowedTypes = types.isEmpty ? nil : index.typeNames.map { types.contains($0) }
        return candidates.filter { c in
            let doc = Int(c.doc)
            if let allowedTypes, !allowedTypes[Int(index.typeOf[doc])] { return false }
            if !categories.isEmpty && !passesCategory(s.entities[doc].category) { return false }
            if expression == nil && filters.isEmpty { return true }
            let attributes = s.entities[doc].attributes
            return (expression?.matches(attributes: attributes) ?? true)
                && filters.allSatisfy { $0.matches(attributes: attributes) }
        }
    }
}
