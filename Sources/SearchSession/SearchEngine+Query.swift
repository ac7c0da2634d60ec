extension SearchEngine {
    /// Answers the system sheet: a capped, ranked union of entity types, related content surfaced.
    ///
    /// Each label matches the entities containing all of its terms (in any weighted field); the
    /// sheet is the union over labels, each weighted by its confidence. A pixel buffer is reduced
    /// and printed once with the built-in model; a client print is compared only with prints of its
    /// model. Text and image rankings are fused by reciprocal rank. Related entities (an album's
    /// artist, and that artist's upcoming concerts) come with those of the top results that the
    /// descriptor identifies (see ``identifies(_:groups:usable:in:)``: the picture matched it, or
    /// a label is its title), marked ``MatchKind/related``, in every third slot after their
    /// parent, with the score of the result before them: so a related entity never displaces its
    /// parent or the best direct match, scores fall down the sheet, and the sheet for a smaller
    /// limit is a prefix of the sheet for a larger one. Nothing within threshold → `[]`.
    ///
    /// - Parameters:
    ///   - request: The descriptor, limit and max distance.
    ///   - linker: Gives results their canonical deep links (cached per snapshot); without one,
    ///     results carry the catalog's own links.
    /// - Returns: At most `limit` results, best first.
    /// - Throws: ``SearchError/Code/invalidArgument`` for a malformed descriptor, a negative or
    ///   non-finite max distance, or a print whose length differs from its model's in the catalog.
    public func query(_ request: QueryRequest, linker: EntityLinker? = nil) throws(SearchError) -> [QueryResult] {
        let limit = try Self.limit(request.limit)
        if let distance = request.maxDistance, !(distance.isFinite && distance >= 0) {
            throw .invalid("max distance \(distance) must be a finite number ≥ 0")
        }
        // Entities the linker cannot open are not candidates at all.
        let snapshot = self.snapshot.served(by: linker)
        let evidence = try Self.imageEvidence(of: request.descriptor, in: snapshot)
        var prints = evidence.clientPrints
        // Pixels answer one picture, by ImageMatchRule; a max distance the client sets lets their
        // print's other neighbours in too, as it does for a client's own print.
        if request.maxDistance != nil, let picture = evidence.picture { prints.insert(picture.print, at: 0) }
        let groups = Self.groups(request.descriptor.labels, analyzer: snapshot.analyzer)
        let ranked = counted { alone in
            Ranker.rank(
                snapshot, groups: groups, mode: .any, prints: prints, maxDistance: request.maxDistance,
                imageLimit: Self.sheetImageCandidates, topK: QueryRequest.maximumLimit,
                splitFrom: alone ? Ranker.matchesWorthASecondCore : .max, pictureMatch: evidence.picture?.match) ?? []
        }
        return Self.sheet(
            ranked, in: snapshot, groups: groups, limit: limit, locale: request.descriptor.locale, today: today,
            linker: linker)
    }

    /// How many of the best direct matches may have their related entities surfaced (those of
    /// them the descriptor identifies).
    static let relatedParents = 3
    /// The most related entities a sheet surfaces: a third of the longest sheet, whatever the
    /// limit, so the candidates (and the order) do not depend on it.
    static let relatedBudget = QueryRequest.maximumLimit / 3

    /// How many nearest prints a sheet query fuses (the sheet shows at most 20).
    static let sheetImageCandidates = 100
    /// How many nearest prints a session search keeps as image hits.
    public static let searchImageCandidates = 1000

    static func limit(_ requested: Int) throws(SearchError) -> Int {
        if requested < 0 { throw .invalid("limit \(requested) must not be negative") }
        return requested == 0 ? QueryRequest.defaultLimit : min(requested, QueryRequest.maximumLimit)
    }

    /// The prints a descriptor brings: the built-in print of its pixels (see
    /// ``pixelPrint(of:source:in:)``) and the client's print.
    static func prints(of descriptor: Descriptor, in snapshot: CatalogSnapshot) throws(SearchError) -> [FeaturePrint] {
        try descriptor.validate()
        var out = [FeaturePrint]()
        if let buffer = descriptor.pixelBuffer {
            out.append(pixelPrint(of: buffer, source: descriptor.source, in: snapshot))
        }
        if let print = descriptor.featurePrint {
            try checkDimension(print, in: snapshot)
            out.append(print)
        }
        return out
    }

    /// What a descriptor brings for image matching: its pixels answered by ``ImageMatchRule``
    /// (see ``pictureAnswer(of:source:in:)``) and the client's own print, matched by distance.
    static func imageEvidence(
        of descriptor: Descriptor, in snapshot: CatalogSnapshot
    ) throws(SearchError) -> (picture: PictureAnswer?, clientPrints: [FeaturePrint]) {
        try descriptor.validate()
        var clientPrints = [FeaturePrint]()
        if let print = descriptor.featurePrint {
            try checkDimension(print, in: snapshot)
            clientPrints.append(print)
        }
        let picture = descriptor.pixelBuffer.map { pictureAnswer(of: $0, source: descriptor.source, in: snapshot) }
        return (picture, clientPrints)
    }

    static func checkDimension(_ print: FeaturePrint, in snapshot: CatalogSnapshot) throws(SearchError) {
        let expected =
            print.model == FeaturePrinter.model
            ? FeaturePrinter.dimension : snapshot.dimension(ofModel: print.model)
        if let expected, expected != print.values.count {
            throw .invalid(
                "feature print of model \(print.model) has \(print.values.count) values; the model has \(expected)")
        }
    }

    static func groups(_ labels: [Label], analyzer: Analyzer) -> [TextGroup] {
        labels.map { TextGroup(display: $0.text, terms: analyzer.terms($0.text), weight: $0.weight) }
    }

    /// Today's date as `YYYY-MM-DD` (UTC, or the fixed day), for "upcoming" related entities.
    func today() -> String { calendarToday.description }

    /// The UTC day, in days since the Unix epoch, that sheet answers are computed for: they list
    /// upcoming events from this day on, so an answer kept for reuse is good until the day changes.
    public var currentDay: Int64 { calendarToday.daysSinceEpoch }

    /// The deep links of `docs` in `s`: the linker's (cached with the snapshot), else the catalog's.
    static func links(_ docs: [Int32], in snapshot: CatalogSnapshot, linker: EntityLinker?) -> [String] {
        if let linker { return snapshot.linkCache.links(docs, in: snapshot, linker: linker) }
        return docs.map { doc in
            let (si, local) = snapshot.locate(doc)
            return snapshot.segments[si].string(snapshot.segments[si].docLink[local])
        }
    }

    /// Whether a related entity is worth surfacing: a dated entity (a concert) only when upcoming.
    ///
    /// - Parameter today: Today's date, asked for only when the entity is dated.
    static func isCurrent(_ doc: Int32, in snapshot: CatalogSnapshot, today: () -> String) -> Bool {
        let (si, local) = snapshot.locate(doc)
        let segment = snapshot.segments[si]
        guard let number = segment.attributeNumber(named: "date"), let p = segment.attribute(number, of: local),
            case .string(let date) = segment.attributeValue(at: p), date.utf8.count >= 10
        else { return true }
        return date.count >= 10 ? String(date.prefix(10)) >= today() : true
    }

    /// The live related entities of a document, as document numbers, in the catalog's order.
    static func related(of doc: Int32, in snapshot: CatalogSnapshot) -> [Int32] {
        let (si, local) = snapshot.locate(doc)
        return snapshot.segments[si].related(of: local).compactMap { snapshot.doc(of: $0) }
    }

    /// Whether the descriptor identifies a direct match, so that its related entities belong on
    /// the sheet: the picture matched it (an image match), or a label it matched is its title
    /// (`abbey road` for the album Abbey Road).
    ///
    /// A label that many entities share (`spoon`, `band`, a colour) only picks one of them first
    /// by score; the related entities of that one (the spoon's brand, the band's albums) would
    /// push the other matches of the label down for something the descriptor did not show.
    static func identifies(
        _ candidate: Candidate, groups: [TextGroup], usable: [Int], in snapshot: CatalogSnapshot
    ) -> Bool {
        if candidate.distance != nil { return true }
        // A title hit is an exact hit: only those read their title.
        guard candidate.exact else { return false }
        let title = snapshot.titleTerms(of: candidate.doc)
        return usable.indices.contains { k in
            candidate.matchedGroups & (1 << UInt32(k)) != 0 && groups[usable[k]].terms == title
        }
    }

    /// Builds the sheet from a ranking: primaries, their related entities, display fields.
    ///
    /// The few documents seen while following related links are kept in an array (a set would
    /// cost more than it saves at this size); only the results' own fields are read.
    static func sheet(
        _ ranked: [Candidate], in snapshot: CatalogSnapshot, groups: [TextGroup], limit: Int, locale: String,
        today: () -> String, linker: EntityLinker?
    ) -> [QueryResult] {
        var todayText: String?
        func cachedToday() -> String {
            if let todayText { return todayText }
            let t = today()
            todayText = t
            return t
        }
        let primaries = ranked
        let usable = Ranker.usableGroups(groups)
        let parents = primaries.prefix(Self.relatedParents).filter {
            identifies($0, groups: groups, usable: usable, in: snapshot)
        }
        var related = RelatedWalk(parents: parents[...], budget: Self.relatedBudget)
        // One order for every limit (the candidates above come from the longest sheet's ranking,
        // whatever the limit), cut at the limit: every third slot goes to a related entity whose
        // parent is already shown, the others to direct matches in ranking order. So a related
        // entity never displaces its parent or the best direct match, and a smaller limit gives a
        // prefix of a larger one.
        enum Slot {
            case primary(Int)
            case related(Int)
        }
        let parentRank = Dictionary(
            uniqueKeysWithValues: primaries.prefix(Self.relatedParents).enumerated().map { ($0.element.doc, $0.offset) }
        )
        var slots = [Slot]()
        var placed = [Int32]()
        var (p, r) = (0, 0)
        while slots.count < limit {
            // The walk finds related entities only as far as the sheet needs them (one ahead).
            let nextRelated = related.entry(r, in: snapshot, today: cachedToday)
            if p == primaries.count && nextRelated == nil { break }
            if p < primaries.count && placed.contains(primaries[p].doc) {
                p += 1
                continue
            }
            if let entry = nextRelated, placed.contains(entry.doc) {
                r += 1
                continue
            }
            let relatedReady = nextRelated.map { (parentRank[$0.parent] ?? 0) < p } ?? false
            if p < primaries.count && (!relatedReady || slots.count % 3 != 2) {
                slots.append(.primary(p))
                placed.append(primaries[p].doc)
                p += 1
            } else {
                slots.append(.related(r))
                placed.append(related.found[r].doc)
                r += 1
            }
        }
        let docs = placed
        let links = Self.links(docs, in: snapshot, linker: linker)
        let several = docs.count > 1
        var out = [QueryResult]()
        out.reserveCapacity(docs.count)
        for (position, slot) in slots.enumerated() {
            switch slot {
            case .primary(let i):
                let primary = primaries[i]
                out.append(
                    result(
                        primary.doc, in: snapshot, candidate: primary, score: primary.score, parent: nil,
                        matchedTerms: Ranker.matchedTerms(primary.matchedGroups, groups: groups, usable: usable),
                        locale: locale, several: several, link: links[position]))
            case .related(let i):
                let entry = related.found[i]
                let (parentSegment, parentDoc) = snapshot.locate(entry.parent)
                // It takes the score of the slot it fills (the result before it), so scores
                // still fall down the sheet; it never comes first, so there always is one.
                out.append(
                    result(
                        entry.doc, in: snapshot, candidate: nil, score: out.last?.score ?? entry.score,
                        parent: snapshot.segments[parentSegment].ref(of: parentDoc), matchedTerms: [], locale: locale,
                        several: several, link: links[position]))
            }
        }
        return out
    }

    /// A result's display fields, read from its document's columns.
    static func result(
        _ doc: Int32, in snapshot: CatalogSnapshot, candidate: Candidate?, score: Float, parent: EntityRef?,
        matchedTerms: [String], locale: String, several: Bool, link: String
    ) -> QueryResult {
        let (si, local) = snapshot.locate(doc)
        let segment = snapshot.segments[si]
        let strings = segment.strings([
            segment.docTitle[local], segment.docSubtitle[local], segment.docImage[local],
            segment.docThumbnail[local], segment.docID[local],
        ])
        let (image, thumbnail) = (strings[2], strings[3])
        let text =
            segment.showsLocalized(local, in: locale)
            ? segment.display(local, locale: locale) : LocalizedText(title: strings[0], subtitle: strings[1])
        return QueryResult(
            entity: EntityRef(type: segment.type(of: local), id: strings[4]), title: truncate(text.title, 80),
            subtitle: truncate(text.subtitle, 160),
            thumbnailURL: several ? (thumbnail.isEmpty ? image : thumbnail) : "",
            imageURL: several ? "" : (image.isEmpty ? thumbnail : image), deepLink: link,
            score: score, match: candidate?.match ?? .related, distance: candidate?.distance,
            matchedTerms: matchedTerms, relatedTo: parent, category: segment.category(of: local))
    }

    /// `text` if it has at most `limit` characters, else its first `limit - 1` and an ellipsis.
    static func truncate(_ text: String, _ limit: Int) -> String {
        // A string of at most `limit` bytes has at most `limit` characters. A longer one is walked
        // `limit` characters, never counted whole: a description can be thousands of bytes, and
        // counting every result's was the largest single cost of a Capture on recipes-100k.
        guard text.utf8.count > limit, limit > 0,
            let cut = text.index(text.startIndex, offsetBy: limit - 1, limitedBy: text.endIndex),
            let past = text.index(cut, offsetBy: 1, limitedBy: text.endIndex), past != text.endIndex
        else { return text }
        return String(text[..<cut]) + "…"
    }
}

extension SearchEngine {
    /// The sheet query as a stream: each result is yielded once it is final, best first.
    ///
    /// Ranking needs every candidate before the first result is final, so the results arrive
    /// together after the scan; the stream lets a server-streaming handler send each as soon as it
    /// is encoded. Cancelling the consuming task stops the stream.
    ///
    /// - Parameters:
    ///   - request: The descriptor, limit and max distance.
    ///   - linker: Gives results their canonical deep links, as for ``query(_:linker:)``.
    /// - Returns: The results, or a ``SearchError`` as the stream's error.
    public func streamQuery(
        _ request: QueryRequest, linker: EntityLinker? = nil
    ) -> AsyncThrowingStream<QueryResult, any Error> {
        AsyncThrowingStream { continuation in
            do {
                for r in try query(request, linker: linker) {
                    if case .terminated = continuation.yield(r) { return }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

/// The related entities of the sheet's identified best direct matches (an album's artist, that
/// artist's upcoming concerts), in one fixed order, found only as far as they are asked for: each parent's
/// neighbours one hop away, then two, skipping what was already found and what is not current.
struct RelatedWalk {
    /// The direct matches whose related entities are surfaced, best first.
    let parents: ArraySlice<Candidate>
    /// The most entities the walk finds.
    let budget: Int
    /// What was found, in order: the entity, its score (half its parent's) and its parent.
    private(set) var found: [(doc: Int32, score: Float, parent: Int32)] = []
    private var seen: [Int32]
    private var nextParent: Int
    private var queue: [Int32] = []
    private var queued = 0

    init(parents: ArraySlice<Candidate>, budget: Int) {
        self.parents = parents
        self.budget = budget
        seen = parents.map(\.doc)
        nextParent = parents.startIndex
    }

    /// The `index`th related entity, found now if not yet; `nil` past the last.
    mutating func entry(
        _ index: Int, in snapshot: CatalogSnapshot, today: () -> String
    ) -> (doc: Int32, score: Float, parent: Int32)? {
        while found.count <= index && found.count < budget {
            if queued == queue.count {
                guard nextParent < parents.endIndex else { return nil }
                let hop1 = SearchEngine.related(of: parents[nextParent].doc, in: snapshot)
                queue = hop1 + hop1.flatMap { SearchEngine.related(of: $0, in: snapshot) }
                queued = 0
                nextParent += 1
                continue
            }
            let doc = queue[queued]
            queued += 1
            guard !seen.contains(doc), SearchEngine.isCurrent(doc, in: snapshot, today: today) else { continue }
            seen.append(doc)
            let parent = parents[nextParent - 1]
            found.append((doc, parent.score * 0.5, parent.doc))
        }
        return index < found.count ? found[index] : nil
    }
}
