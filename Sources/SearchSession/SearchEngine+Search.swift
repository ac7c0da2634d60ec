internal import Synchronization

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
        if request.maxFacetValues < 0 {
            throw .invalid("max facet values \(request.maxFacetValues) must not be negative")
        }
        if request.maxFacets < 0 { throw .invalid("max facets \(request.maxFacets) must not be negative") }
        let pageSize = min(
            request.pageSize > 0 ? request.pageSize : (session.pageSize > 0 ? session.pageSize : Self.defaultPageSize),
            Self.maximumPageSize)
        for filter in request.filters { try filter.validate() }
        try request.filterExpression?.validate()
        if request.sort.key == .attribute && request.sort.attribute.isEmpty {
            throw .invalid("sorting by attribute needs an attribute name")
        }
        let hash = refinementHash(session: session.id, request)
        let pinnedSnapshot: CatalogSnapshot
        var offset = 0
        if request.pageToken.isEmpty {
            pinnedSnapshot = self.snapshot
        } else {
            let token = try PageToken(decoding: request.pageToken)
            guard token.refinementHash == hash else {
                throw .invalid("page token belongs to a different refinement; send the same refinement or start over")
            }
            guard let pinned = self.snapshot(version: token.version, generation: token.generation) else {
                throw SearchError(
                    code: .catalogChanged,
                    message: "the catalog changed since this page token (version \(token.version) is no longer kept); "
                        + "start again from page 1")
            }
            pinnedSnapshot = pinned
            offset = token.offset
        }
        // Entities the linker cannot open are left out of hits, counts and facets alike.
        let snapshot = pinnedSnapshot.served(by: linker)
        let needed = offset.addingReportingOverflow(pageSize).overflow ? .max : offset + pageSize
        let key = EvaluationCache.Key(
            session: session.id, content: EvaluationCache.contentHash(of: session), refinement: hash,
            version: snapshot.version, generation: snapshot.generation,
            maxFacetValues: request.maxFacetValues, maxFacets: request.maxFacets,
            includedFacets: Set(request.includedFacets), linker: linker.map(ObjectIdentifier.init))
        let evaluation: Evaluation
        if let cached = evaluations.evaluation(key, needed: needed) {
            evaluation = cached
        } else {
            // The next page's hits are ordered now too (a top-k of a few more), and kept; a page
            // past them orders ten pages more (a reader who got that far reads on). Every first
            // page pays for its extra page, so it stays one.
            let window = needed.addingReportingOverflow(offset == 0 ? pageSize : EvaluationCache.window)
            evaluation = counted { alone in
                evaluate(
                    snapshot, session: session, request: request, needed: window.overflow ? .max : window.partialValue,
                    splitting: alone)
            }
            // Only a page that has a next one is asked for again (its token names this key): an
            // evaluation whose hits end on this page would take the place of one that is.
            if evaluation.total > needed { evaluations.store(evaluation, for: key) }
        }
        let total = evaluation.total
        let page = evaluation.hits.dropFirst(offset).prefix(pageSize)
        let several = total > 1
        let groups = evaluation.groups
        let usable = Ranker.usableGroups(groups)
        let links = Self.links(page.map(\.doc), in: snapshot, linker: linker)
        let results = zip(page, links).map { candidate, link in
            Self.result(
                candidate.doc, in: snapshot,
                candidate: candidate.textScore == nil && candidate.distance == nil ? nil : candidate,
                score: candidate.score, parent: nil,
                matchedTerms: Ranker.matchedTerms(candidate.matchedGroups, groups: groups, usable: usable),
                locale: session.locale, several: several, link: link)
        }
        let next = offset + page.count
        if next < total { pinnedSnapshot.handedOutPageToken.store(true, ordering: .relaxed) }
        return SearchState(
            sessionID: session.id, queryText: evaluation.queryText, chips: evaluation.chips, facets: evaluation.facets,
            moreFacets: evaluation.moreFacets,
            appliedFilters: evaluation.filters.map { AppliedFilter(filter: $0, label: $0.label) }, results: results,
            nextPageToken: next < total
                ? PageToken(
                    version: snapshot.version, generation: snapshot.generation, offset: next, refinementHash: hash
                )
                .encoded : "",
            totalHits: total, relaxations: evaluation.relaxations, expiresAtUnixMs: session.expiresAtUnixMs,
            sort: request.sort, browseCategories: evaluation.browse, source: session.source, locale: session.locale,
            catalogVersion: snapshot.version)
    }

    struct Evaluation: Sendable {
        var queryText: String
        var chips: [Chip]
        var groups: [TextGroup]
        /// The hits in their final order, at least the first `needed` of them.
        var hits: [Candidate]
        /// How many hits there are in all.
        var total: Int
        var facets: [Facet]
        var moreFacets: [String]
        var filters: [AttributeFilter]
        var relaxations: [Relaxation]
        var browse: [FacetValue]
        /// What the facets' value numbers (``FacetValue/labelNumber``) number.
        var facetLabels = FacetLabels()
    }

    /// What a refinement matches before its constraints: candidates in document order, or every
    /// live document (nothing to match on: no selected label, no text, no print).
    enum Matches {
        case some([Candidate])
        /// The matching documents in document order and only the best of them as candidates, in
        /// ranking order (see ``RelaxationContext/keepsBest``).
        case ranked(docs: [Int32], best: [Candidate])
        case everything
    }

    /// The state relaxation works on: the selection, and what it matches.
    struct Selection {
        var chips: [Chip]
        var constraints: Constraints
        var groups: [TextGroup]
        var matches: Matches
    }

    /// The relaxation steps, in the order they are tried when a refinement finds nothing: each
    /// changes the selection and says how, or returns `nil` when it has nothing to relax.
    enum RelaxationStep: CaseIterable {
        case dropWeakestLabel, widenCategories, dropFilters

        func apply(_ selection: inout Selection, _ context: RelaxationContext) -> Relaxation? {
            switch self {
            case .dropWeakestLabel: SearchEngine.dropWeakestLabel(&selection, context)
            case .widenCategories: SearchEngine.widenCategories(&selection, context)
            case .dropFilters: SearchEngine.dropFilters(&selection, context)
            }
        }
    }

    /// What the relaxation steps read besides the selection.
    struct RelaxationContext {
        let snapshot: CatalogSnapshot
        let session: SessionRecord
        let freeText: (display: String, terms: [String])
        let prints: [FeaturePrint]
        /// Whether matching may split across two cores (see ``SearchEngine/counted(_:)``).
        var splitting = true
        /// How many of the best matches to keep as candidates, when a refinement needs no more:
        /// with no constraints (relaxation only ever removes them), no prints and the relevance
        /// order, its hits are its matches and its pages the best of them. `nil`: every match.
        var keepsBest: Int? = nil
    }

    /// Drops the weakest selected label while more than one is selected: lowest confidence; among
    /// equals, the last (labels come most confident first).
    static func dropWeakestLabel(_ selection: inout Selection, _ context: RelaxationContext) -> Relaxation? {
        let analyzer = context.snapshot.analyzer
        let selected = selection.chips.indices.filter {
            selection.chips[$0].selected && !analyzer.terms(selection.chips[$0].text).isEmpty
        }
        guard selected.count > 1 else { return nil }
        let before = selected.map { selection.chips[$0].text }.joined(separator: " ")
        let weakest = selected.min {
            let leftWeight = context.session.labels[$0].weight
            let rightWeight = context.session.labels[$1].weight
            return leftWeight != rightWeight ? leftWeight < rightWeight : $0 > $1
        }!
        selection.chips[weakest].selected = false
        selection.groups = groups(selection.chips, context: context)
        selection.matches = matches(selection.groups, context: context)
        return Relaxation(
            kind: .droppedLabel, subject: selection.chips[weakest].text, searched: before,
            shown: selection.chips.filter(\.selected).map(\.text).joined(separator: " "))
    }

    /// Widens the selected categories to their parents (a top-level one to all categories).
    static func widenCategories(_ selection: inout Selection, _ context: RelaxationContext) -> Relaxation? {
        let old = selection.constraints.categories
        guard !old.isEmpty else { return nil }
        selection.constraints.categories = Array(Set(old.compactMap(parentCategory))).sorted()
        // One relaxation per widened category would say the same thing several times; the first
        // names what was widened, the rest are in the applied state.
        return Relaxation(kind: .widenedCategory, subject: old[0], shown: parentCategory(old[0]) ?? "")
    }

    /// Drops the attribute filters and the filter expression.
    static func dropFilters(_ selection: inout Selection, _ context: RelaxationContext) -> Relaxation? {
        let constraints = selection.constraints
        guard !constraints.filters.isEmpty || constraints.expression != nil else { return nil }
        let labels = constraints.filters.map(\.label) + (constraints.expression == nil ? [] : ["the filter expression"])
        selection.constraints.filters = []
        selection.constraints.expression = nil
        return Relaxation(kind: .droppedFilter, subject: labels.joined(separator: ", "))
    }

    /// The text groups of the selected chips and the free text.
    static func groups(_ chips: [Chip], context: RelaxationContext) -> [TextGroup] {
        var out = [TextGroup]()
        for (i, label) in context.session.labels.enumerated() where chips[i].selected {
            out.append(
                TextGroup(display: label.text, terms: context.snapshot.analyzer.terms(label.text), weight: label.weight)
            )
        }
        if !context.freeText.terms.isEmpty {
            out.append(TextGroup(display: context.freeText.display, terms: context.freeText.terms, weight: 1))
        }
        return out
    }

    /// What the groups and the session's prints match, in document order.
    static func matches(_ groups: [TextGroup], context: RelaxationContext) -> Matches {
        if let k = context.keepsBest {
            return Ranker.bestMatchingAll(
                context.snapshot, groups: groups, k: k,
                splitFrom: context.splitting ? Ranker.matchesWorthASecondCore : .max
            ).map { Matches.ranked(docs: $0.docs, best: $0.best) } ?? .everything
        }
        return Ranker.rank(
            context.snapshot, groups: groups, mode: .all, prints: context.prints,
            maxDistance: context.session.maxDistance,
            imageLimit: Self.searchImageCandidates, ordered: false,
            splitFrom: context.splitting ? Ranker.matchesWorthASecondCore : .max,
            pictureMatch: context.session.pictureMatch.flatMap { match in
                context.snapshot.doc(of: match.entity).map { (doc: $0, distance: match.distance) }
            }
        ).map(Matches.some) ?? .everything
    }

    /// Everything but the page cut: deterministic for a snapshot, a session and a refinement.
    ///
    /// Candidates stay in document order until the facets are counted; only the first `needed`
    /// hits are put in order. With nothing to match on, the hits are every live document: their
    /// count and unconstrained facets are the snapshot's own (computed once per snapshot), and a
    /// page reads only the documents it shows.
    ///
    /// - Parameter splitting: Whether matching and counting may split across two cores.
    func evaluate(
        _ snapshot: CatalogSnapshot, session: SessionRecord, request: SearchRequest, needed: Int = .max,
        splitting: Bool = true
    ) -> Evaluation {
        let disabled = Set(request.disabledLabels.map { Analyzer.tokens($0).joined(separator: " ") })
        let chips = session.labels.map { label in
            Chip(
                text: label.text, selected: !disabled.contains(Analyzer.tokens(label.text).joined(separator: " ")),
                confidence: label.confidence)
        }
        let queryText = request.query ?? session.queryText
        let constraints = Constraints(
            types: Set(request.entityTypes),
            categories: request.categories.map(normalizeCategory).filter { !$0.isEmpty },
            filters: request.filters, expression: request.filterExpression)
        let keepsBest =
            constraints.isEmpty && session.prints.isEmpty && session.pictureMatch == nil
            && request.sort.key == .relevance && needed <= Self.mostBestKept
        let context = RelaxationContext(
            snapshot: snapshot, session: session, freeText: (queryText, snapshot.analyzer.terms(queryText)),
            prints: session.prints, splitting: splitting, keepsBest: keepsBest ? needed : nil)
        let groups = Self.groups(chips, context: context)
        var selection = Selection(
            chips: chips, constraints: constraints, groups: groups, matches: Self.matches(groups, context: context))
        var relaxations = [Relaxation]()
        var browse = [FacetValue]()
        var hits = Self.filter(selection.matches, by: selection.constraints, in: snapshot)
        relaxing: while hits.isEmpty {
            for step in RelaxationStep.allCases {
                if let relaxation = step.apply(&selection, context) {
                    relaxations.append(relaxation)
                    hits = Self.filter(selection.matches, by: selection.constraints, in: snapshot)
                    continue relaxing
                }
            }
            relaxations.append(
                Relaxation(kind: .browse, subject: selection.groups.map(\.display).joined(separator: " ")))
            browse = snapshot.topCategories
            break
        }
        let docs: [Int32]?
        switch selection.matches {
        case .some(let list): docs = list.map(\.doc)
        case .ranked(let matching, _): docs = matching
        case .everything: docs = nil
        }
        // Text matches of every usable group (no prints fused in) all have each of their terms.
        let covering =
            context.prints.isEmpty
            ? Ranker.usableGroups(selection.groups).flatMap { selection.groups[$0].terms } : []
        // One numbering for the facets and for their labels in the evaluation cache: a replaced
        // snapshot may drop its numbering and make another meanwhile.
        let numbering = snapshot.numbering
        let listing = Self.facets(
            snapshot, docs: docs, constraints: selection.constraints, request: request,
            covering: covering, splitFrom: splitting ? Self.pairsWorthASecondCore : .max, numbering: numbering)
        let total = hits.count
        let ordered = Self.order(
            hits, in: snapshot, by: request.sort, locale: session.locale, needed: needed,
            splitFrom: splitting ? Ranker.candidatesWorthASecondCore : .max)
        return Evaluation(
            queryText: queryText, chips: selection.chips, groups: selection.groups, hits: ordered, total: total,
            facets: listing.facets, moreFacets: listing.moreFacets, filters: selection.constraints.filters,
            relaxations: relaxations, browse: browse,
            facetLabels: FacetLabels(numbering))
    }

    /// The most hits a refinement keeps only the best of (see ``RelaxationContext/keepsBest``): a
    /// page that deep orders all its matches.
    static let mostBestKept = 1_000

    /// The hits of a refinement: its matches that pass its constraints.
    enum Hits {
        case some([Candidate])
        /// Every match, with only the best as candidates (nothing constrained).
        case ranked(docs: [Int32], best: [Candidate])
        /// Every live document (nothing to match on, nothing constrained).
        case everything(count: Int)

        var isEmpty: Bool { count == 0 }
        var count: Int {
            switch self {
            case .some(let list): list.count
            case .ranked(let docs, _): docs.count
            case .everything(let count): count
            }
        }
    }

    /// The matches that pass the constraints, in document order; constraints are checked in each
    /// segment's own numbering.
    static func filter(_ matches: Matches, by constraints: Constraints, in snapshot: CatalogSnapshot) -> Hits {
        if constraints.isEmpty {
            switch matches {
            case .some(let list): return .some(list)
            case .ranked(let docs, let best): return .ranked(docs: docs, best: best)
            case .everything: return .everything(count: snapshot.count)
            }
        }
        // Candidates come in document order: check them a segment at a time, with that
        // segment's compiled constraints at hand.
        var out = [Candidate]()
        func keep(_ candidates: some Collection<Candidate>) {
            snapshot.forEachSegmentRun(of: candidates, doc: \.doc) { si, run in
                let segment = snapshot.segments[si]
                let base = snapshot.bases[si]
                let compiled = constraints.compiled(for: segment)
                for candidate in run where compiled.passes(Int(candidate.doc - base), in: segment) {
                    out.append(candidate)
                }
            }
        }
        switch matches {
        case .some(let list): keep(list)
        case .ranked:
            // Kept best only without constraints, which relaxing never adds.
            preconditionFailure("ranked matches are only made without constraints")
        case .everything: keep(snapshot.liveDocs().lazy.map(Candidate.init(everything:)))
        }
        return .some(out)
    }

    static func facetOrder(_ a: FacetValue, _ b: FacetValue) -> Bool {
        a.count != b.count ? a.count > b.count : a.value < b.value
    }

    /// The first `needed` hits in the requested order (all of them when `needed` is larger).
    ///
    /// - Parameter splitFrom: The hits from which ordering by relevance is worth two cores.
    static func order(
        _ hits: Hits, in snapshot: CatalogSnapshot, by sort: Sort, locale: String, needed: Int,
        splitFrom: Int = .max
    ) -> [Candidate] {
        let limit = min(needed, hits.count)
        guard limit > 0 else { return [] }
        if case .everything = hits, sort.key == .relevance {
            // Every live document scores the same: document order, and only as far as the page.
            var out = [Candidate]()
            out.reserveCapacity(limit)
            for (si, segment) in snapshot.segments.enumerated() {
                let deleted = snapshot.deletes[si]
                for local in 0..<segment.count where deleted.count == 0 || !deleted.contains(local) {
                    out.append(Candidate(everything: snapshot.bases[si] + Int32(local)))
                    if out.count == limit { return out }
                }
            }
            return out
        }
        let list: [Candidate]
        switch hits {
        case .some(let candidates): list = candidates
        case .ranked(_, let best):
            // Kept best only in the relevance order, as many as needed.
            precondition(sort.key == .relevance, "ranked hits are only made in the relevance order")
            return Array(best.prefix(limit))
        case .everything: list = snapshot.liveDocs().map(Candidate.init(everything:))
        }
        switch sort.key {
        case .relevance: return Ranker.top(list, limit, splitFrom: splitFrom)
        case .title:
            return TitleOrder.top(list, limit, in: snapshot, locale: locale, descending: sort.descending)
        case .attribute:
            let keys = SortKeys(attribute: sort.attribute, of: list, in: snapshot)
            return Self.top(list, limit) { a, b in
                // Documents without the attribute come last either way.
                switch (keys.hasValue(a), keys.hasValue(b)) {
                case (false, false): return a < b
                case (false, true): return false
                case (true, false): return true
                case (true, true):
                    let order = keys.compare(a, b)
                    if order == 0 { return a < b }
                    return sort.descending ? order > 0 : order < 0
                }
            }
        }
    }

    /// The first `k` candidates by `less` over their positions, without sorting them all when
    /// `k` is small.
    static func top<Element>(_ list: [Element], _ k: Int, by less: (Int, Int) -> Bool) -> [Element] {
        if k * 4 >= list.count {
            var positions = Array(list.indices)
            positions.sort(by: less)
            return positions.prefix(k).map { list[$0] }
        }
        return first(k, of: list.indices, by: less).map { list[$0] }
    }
}

/// Sort keys of a list of hits, read in place from their segments' columns.
final class SortKeys {
    /// Per hit: its key's bytes (a string value), or a number.
    private var bytes: [UnsafeBufferPointer<UInt8>] = []
    private var numbers: [Double] = []
    /// Per hit: 0 no value, 1 a number, 2 a string.
    private var kinds: [UInt8] = []

    /// Attribute keys: each hit's value of the attribute, if it has one.
    init(attribute: String, of list: [Candidate], in snapshot: CatalogSnapshot) {
        let numbers = snapshot.segments.map { $0.attributeNumber(named: attribute) }
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        for candidate in list {
            let (si, local) = snapshot.locate(candidate.doc)
            let segment = snapshot.segments[si]
            guard let number = numbers[si], let pair = segment.attribute(number, of: local) else {
                kinds.append(0)
                bytes.append(empty)
                self.numbers.append(0)
                continue
            }
            let value = segment.pairValue[pair]
            if segment.isNumber(value) {
                kinds.append(1)
                bytes.append(empty)
                self.numbers.append(segment.number(value))
            } else {
                kinds.append(2)
                bytes.append(segment.nameBytes(segment.valueStrings[Int(value)]))
                self.numbers.append(0)
            }
        }
    }

    func hasValue(_ i: Int) -> Bool { kinds[i] != 0 }

    /// Negative, zero or positive as hit `i`'s key is below, equal to or above hit `j`'s: numbers
    /// before strings, numbers by value, strings by their UTF-8 bytes.
    func compare(_ i: Int, _ j: Int) -> Int {
        switch (kinds[i], kinds[j]) {
        case (1, 1): return numbers[i] < numbers[j] ? -1 : (numbers[i] > numbers[j] ? 1 : 0)
        case (1, _): return -1
        case (_, 1): return 1
        default:
            let leftKey = bytes[i]
            let rightKey = bytes[j]
            let common = min(leftKey.count, rightKey.count)
            if common > 0 {
                let order = memcmp(leftKey.baseAddress!, rightKey.baseAddress!, common)
                if order != 0 { return Int(order) }
            }
            return leftKey.count - rightKey.count
        }
    }
}

extension Candidate {
    /// A hit of a refinement with nothing to match on: no score, no match.
    init(everything doc: Int32) {
        self.init(doc: doc, exact: false, score: 0, textScore: nil, distance: nil, matchedGroups: 0)
    }
}

/// `Music/Rock` → `Music`; a top-level category has no parent.
func parentCategory(_ category: String) -> String? {
    guard let slash = category.lastIndex(of: "/") else { return nil }
    return String(category[..<slash])
}

#if canImport(Glibc)
    internal import Glibc
#endif
