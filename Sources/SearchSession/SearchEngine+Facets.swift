/// A search's facets, and the attribute facets its hits have that the request's cap left out.
struct FacetListing: Equatable {
    var facets: [Facet]
    /// The names of the attribute facets left out, in order.
    var moreFacets: [String]
}

extension SearchEngine {
    /// The most values a facet lists when the request does not say.
    public static let defaultFacetValues = 100
    /// The most attribute facets (besides type and category) a search lists when the request does
    /// not say: a screen's worth. Those with a selection or that the request includes take their
    /// places first and are listed even beyond it.
    public static let defaultFacets = 20

    /// Exact, disjunctive facet counts over the hits.
    ///
    /// A facet's counts apply every constraint except the facet's own selection: the type facet
    /// ignores the type selection, the category facet the category selection, an attribute's facet
    /// the filters on that attribute. The filter expression applies to all. Category counts include
    /// descendants (a `Music/Rock` album counts for `Music` and `Music/Rock`). Numeric attributes
    /// count in the snapshot's buckets.
    ///
    /// - Parameter docs: The hits in ascending order, or `nil` for every live document:
    ///   then counts the snapshot keeps are used where a facet's own selection is the only
    ///   constraint, and otherwise the documents are read column by column.
    /// - Parameter covering: Terms every hit has (the hits are the documents that
    ///   have all of them), or none: when the hits are most of such a term's documents, its
    ///   counts less those of its other documents are counted instead of the hits.
    /// - Parameter splitFrom: How many pairs to count make it worth two cores.
    /// - Parameter termCountsFrom: How many hits make a term's counts worth keeping.
    /// - Parameter numbering: The snapshot's numbering, when the caller holds it already (the
    ///   values' ``FacetValue/labelNumber``s number its labels).
    static func facets(
        _ snapshot: CatalogSnapshot, docs hits: [Int32]?, constraints: Constraints, request: SearchRequest,
        covering: [String] = [], splitFrom: Int = pairsWorthASecondCore, termCountsFrom: Int = termCountsFrom,
        numbering: FacetNumbering? = nil
    ) -> FacetListing {
        let numbering = numbering ?? snapshot.numbering
        if hits == nil && constraints.isEmpty {
            return facets(
                snapshot.everythingCounts, seen: nil, numbering: numbering, constraints: constraints, request: request)
        }
        if constraints.isEmpty, let hits {
            // Without constraints every counted attribute has a count, so no `seen` is needed.
            let counts: FacetCounts
            if let (term, kept) = termWorthCounting(
                covering, hits: hits.count, in: snapshot, from: termCountsFrom)
            {
                // Hits as many as the term's documents (deleted ones included) are all of them.
                let others =
                    TextIndex.documentFrequency(term, in: snapshot) == hits.count
                    ? [] : TextIndex.liveDocs(term, in: snapshot, except: hits)
                let othersCounts = tally(others, in: snapshot, constraints: .unconstrained, splitFrom: splitFrom).counts
                if let kept {
                    counts = kept.subtracting(othersCounts)
                } else {
                    // The term's first such search: the hits as ever, and its other documents
                    // beside them, kept together for the next.
                    counts = unconstrainedCounts(hits, in: snapshot, splitFrom: splitFrom)
                    snapshot.keepTermCounts(counts.adding(othersCounts), of: term)
                }
            } else {
                counts = unconstrainedCounts(hits, in: snapshot, splitFrom: splitFrom)
            }
            return facets(counts, seen: nil, numbering: numbering, constraints: constraints, request: request)
        }
        let counted = tally(hits ?? snapshot.liveDocs(), in: snapshot, constraints: constraints, splitFrom: splitFrom)
        return facets(
            counted.counts, seen: counted.seen, numbering: numbering, constraints: constraints, request: request)
    }

    /// The term of `covering` whose documents' counts are worth using, with its kept counts if
    /// any: the rarest, when the hits (which all have it) are at least half of its documents (so
    /// its other documents are at most as many as the hits), and many enough to be worth keeping
    /// counts for. Its first such search counts the hits and its other documents both (at most
    /// twice the hits, once per term and snapshot) and keeps their sum; later ones count only its
    /// other documents. A term with fewer documents than hits cannot cover them and is never used.
    static func termWorthCounting(
        _ covering: [String], hits: Int, in snapshot: CatalogSnapshot, from: Int
    ) -> (term: String, kept: CompactFacetCounts?)? {
        guard hits >= from,
            let rarest = covering.map({ ($0, TextIndex.documentFrequency($0, in: snapshot)) }).min(by: { $0.1 < $1.1 }),
            rarest.1 >= hits, hits * 2 >= rarest.1
        else { return nil }
        return (rarest.0, snapshot.termCounts(rarest.0))
    }

    /// Hits below which counting them costs too little to keep a term's counts for.
    static let termCountsFrom = 4_096

    /// Facet counts of `hits` without constraints: of the documents themselves, or, when
    /// most live documents are hits (a very common label), the snapshot's own totals less the
    /// few that are not, so the cost follows the smaller side. Each half of the document
    /// numbers finds its own non-hits.
    private static func unconstrainedCounts(
        _ hits: [Int32], in snapshot: CatalogSnapshot, splitFrom: Int
    ) -> FacetCounts {
        guard hits.count * 2 > snapshot.count else {
            return tally(hits, in: snapshot, constraints: .unconstrained, splitFrom: splitFrom).counts
        }
        let split = countsInHalves(snapshot.count - hits.count, in: snapshot, splitFrom: splitFrom)
        let ranges = split ? TwoCores.halves(of: snapshot) : [Int32.min..<Int32.max]
        let missing = tallied(snapshot, split: split) { part, tally in
            let docs = complement(of: hits, in: snapshot, range: ranges[part])
            count(docs[...], in: snapshot, constraints: .unconstrained, into: tally)
        }
        return snapshot.everythingCounts.subtracting(missing.counts)
    }

    /// Counts of `docs` (ascending) under `constraints`, in two halves on two cores when many.
    private static func tally(
        _ docs: [Int32], in snapshot: CatalogSnapshot, constraints: Constraints, splitFrom: Int
    ) -> FacetTally {
        let middle = docs.count / 2
        let halves = [docs[..<middle], docs[middle...]]
        let split = countsInHalves(docs.count, in: snapshot, splitFrom: splitFrom)
        return tallied(snapshot, split: split) { part, tally in
            count(split ? halves[part] : docs[...], in: snapshot, constraints: constraints, into: tally)
        }
    }

    /// One tally made by `work` (part 0), or, when `split`, by its two parts (0 and 1) on two
    /// cores, each into its own tally, then added (a pass over the value numbers, not the pairs).
    private static func tallied(
        _ snapshot: CatalogSnapshot, split: Bool, _ work: (_ part: Int, _ tally: FacetTally) -> Void
    ) -> FacetTally {
        guard split else {
            let tally = FacetTally(snapshot.numbering)
            work(0, tally)
            return tally
        }
        let tallies = TwoCores.map { part in
            let tally = FacetTally(snapshot.numbering)
            work(part, tally)
            return tally
        }
        tallies[0].add(tallies[1])
        return tallies[0]
    }

    /// Adds the disjunctive counts of `docs` (ascending) to `tally`: a segment at a time, with that
    /// segment's compiled constraints and number maps at hand.
    private static func count(
        _ docs: ArraySlice<Int32>, in snapshot: CatalogSnapshot, constraints: Constraints, into tally: FacetTally
    ) {
        let numbering = snapshot.numbering
        snapshot.forEachSegmentRun(of: docs, doc: { $0 }) { si, run in
            Self.count(
                run, base: snapshot.bases[si], segment: snapshot.segments[si], numbers: numbering.segmentNumbers[si],
                numbering: numbering, constraints: constraints, tally: tally)
        }
    }

    /// The live documents in `range` that are not among `hits` (both ascending): the gaps
    /// between consecutive hits, less deleted documents.
    private static func complement(
        of hits: [Int32], in snapshot: CatalogSnapshot, range: Range<Int32>
    ) -> [Int32] {
        var out = [Int32]()
        var next = hits.partitionPoint { $0 >= range.lowerBound }
        let last = hits[next...].partitionPoint { $0 >= range.upperBound }
        let width = min(Int64(range.upperBound), Int64(snapshot.documentCount)) - max(Int64(range.lowerBound), 0)
        out.reserveCapacity(max(0, Int(width) - (last - next)))
        for (si, segment) in snapshot.segments.enumerated() {
            let base = snapshot.bases[si]
            let start = max(base, range.lowerBound)
            let end = Int32(clamping: min(Int64(base) + Int64(segment.count), Int64(range.upperBound)))
            guard start < end else { continue }
            let deleted = snapshot.deletes[si]
            func addGap(_ gap: Range<Int32>) {
                if deleted.count == 0 {
                    for doc in gap { out.append(doc) }  // a plain loop: append(contentsOf:) of a range copies slower
                } else {
                    for doc in gap where !deleted.contains(Int(doc - base)) { out.append(doc) }
                }
            }
            var doc = start
            while next < hits.count && hits[next] < end {
                let hit = hits[next]
                if hit >= doc { addGap(doc..<hit) }
                doc = max(doc, hit + 1)
                next += 1
            }
            addGap(doc..<end)
        }
        return out
    }

    /// Whether counting `documents` of `snapshot` pays for splitting across two cores: when their
    /// pairs are many more than a tally's value numbers (which the merge reads) and the machine
    /// has a second core.
    private static func countsInHalves(_ documents: Int, in snapshot: CatalogSnapshot, splitFrom: Int) -> Bool {
        let pairsPerDocument = snapshot.segments.reduce(0) { $0 + $1.pairValue.count } / max(snapshot.count, 1)
        return TwoCores.pays(documents * (pairsPerDocument + 2), from: splitFrom)
    }

    /// Pairs counted below which a second core costs more (its wake-up, a second tally and the
    /// merge) than it saves; chosen on the shop and sparse catalogs.
    static let pairsWorthASecondCore = 200_000

    /// Adds one segment's documents to the disjunctive counts.
    private static func count(
        _ docs: ArraySlice<Int32>, base: Int32, segment: Segment, numbers: SegmentNumbers, numbering: FacetNumbering,
        constraints: Constraints, tally: FacetTally
    ) {
        if constraints.isEmpty {
            tally.addDocuments(docs, base: base, of: segment, numbers, numbering)
            return
        }
        let compiled = constraints.compiled(for: segment)
        if SegmentCounts.pays(for: docs.count, in: segment) {
            // Many documents: count in the segment's own numbers, folded once at the end.
            let counts = SegmentCounts(segment, notesPresence: true)
            let masks = segment.attributeMasks.masks
            for global in docs {
                let doc = Int(global - base)
                guard let standing = compiled.standing(doc, in: segment) else { continue }
                if standing.countsType { counts.addType(doc) }
                if standing.countsCategory { counts.addCategory(doc) }
                let pairs = segment.attributes(of: doc)
                if standing.countsEveryValue {
                    for pair in pairs { counts.addValue(segment.pairValue[pair]) }
                } else {
                    if standing.countsSomeValues {
                        // Only the failed attribute's value counts: the one case that looks attributes up.
                        for pair in pairs {
                            let value = segment.pairValue[pair]
                            if standing.countsValue(ofAttribute: segment.attribute(ofValue: value)) {
                                counts.addValue(value)
                            }
                        }
                    }
                    // Its other attributes show all the same, with the counts the constraints leave.
                    counts.notePresent(attributesOf: doc, masks)
                }
            }
            counts.fold(into: tally, numbers)
            return
        }
        for global in docs {
            let doc = Int(global - base)
            guard let standing = compiled.standing(doc, in: segment) else { continue }
            if standing.countsType { tally.addType(doc, of: segment, numbers) }
            if standing.countsCategory { tally.addCategories(doc, of: segment, numbers) }
            for pair in segment.attributes(of: doc) {
                let value = segment.pairValue[pair]
                let attribute = segment.attribute(ofValue: value)
                tally.seen[Int(numbers.attributes[Int(attribute)])] = true
                if standing.countsValue(ofAttribute: attribute) { tally.addValue(value, of: segment, numbers) }
            }
        }
    }

    /// The facets of counts: type, category, then attributes by name; values most first.
    ///
    /// Only values that can be shown get a label (see ``ShowableFacetValues``): a wide facet of
    /// many hits counts far more values than it lists.
    private static func facets(
        _ counts: FacetCounts, seen: UnsafeMutableBufferPointer<Bool>?, numbering: FacetNumbering,
        constraints: Constraints,
        request: SearchRequest
    ) -> FacetListing {
        let limit = request.maxFacetValues > 0 ? request.maxFacetValues : defaultFacetValues
        func facet(
            _ name: String, _ kind: FacetKind, _ label: (Int) -> String, _ counts: [Int32], selected: Set<String>
        ) -> Facet {
            let showable = ShowableFacetValues(
                counts, runs: ValueRuns(oneFacet: counts.count), facets: 1, limit: limit,
                keepsAll: [!selected.isEmpty])
            let candidates = showable.values(of: 0).map { value in
                let name = label(Int(value))
                return FacetValue(
                    value: name, count: Int(counts[Int(value)]), selected: selected.contains(name),
                    labelNumber: Int32(value))
            }
            let (values, more) = Self.ordered(
                candidates, selected: selected, limit: limit, counted: showable.counted[0])
            return Facet(name: name, kind: kind, values: values, moreValues: more)
        }
        var out = [Facet]()
        out.append(
            facet("type", .type, { numbering.typeNames[$0] }, counts.types, selected: Set(request.entityTypes)))
        out.append(
            facet(
                "category", .category, { numbering.categoryNames[$0] }, counts.categories,
                selected: Set(constraints.categories)))
        let attributes = numbering.attributeNames.count
        let selections = numbering.attributeNames.indices.map { attribute in
            selectedLabels(of: attribute, numbering: numbering, constraints: constraints)
        }
        // Buckets come with their labels.
        var labelledValues = [[(label: String, count: Int)]](repeating: [], count: attributes)
        for (attribute, layout) in numbering.buckets.enumerated() {
            guard let layout else { continue }
            let start = Int(numbering.bucketStart[attribute])
            for bucket in 0..<layout.count where counts.buckets[start + bucket] > 0 {
                labelledValues[attribute].append((layout.label(bucket), Int(counts.buckets[start + bucket])))
            }
        }
        // Each listed attribute's string values that can be shown, straight from the count
        // arrays, as value numbers; every one where numbers counted by their text merge with them
        // by label (those are collected whether listed or not: rare, and their labels need them).
        // Which attributes are listed is decided from the strings' counts before their values
        // are collected.
        func merges(_ attribute: Int) -> Bool { counts.textNumbers[Int32(attribute)] != nil }
        var listed = (contains: [Bool](), leftOut: [String]())
        let strings = ShowableFacetValues(
            counts.values, runs: numbering.valueRuns, facets: attributes, limit: limit,
            keepsAll: (0..<attributes).map { !selections[$0].isEmpty || merges($0) }
        ) { weights, counted in
            listed = listedAttributes(
                numbering: numbering, request: request, selections: selections, seen: seen,
                counted: { attribute in
                    counted[attribute] + labelledValues[attribute].count
                        + (counts.textNumbers[Int32(attribute)]?.count(where: { $0.value > 0 }) ?? 0)
                },
                weight: { attribute in
                    // A merged attribute's strings and numbers are summed apart: an upper bound
                    // of their merged labels' sum.
                    weights[attribute]
                        + largestSum(
                            labelledValues[attribute].map(\.count)
                                + (counts.textNumbers[Int32(attribute)]?.values.map { Int($0) } ?? []), limit)
                })
            return (0..<attributes).map { listed.contains[$0] || merges($0) }
        }
        // Numbers counted by their text merge with the strings by label.
        for (attribute, labels) in counts.textNumbers {
            var merged = Dictionary(
                uniqueKeysWithValues: strings.values(of: Int(attribute)).map {
                    (numbering.valueLabels[Int($0)], Int(counts.values[Int($0)]))
                })
            for (label, count) in labels where count > 0 { merged[label, default: 0] += Int(count) }
            labelledValues[Int(attribute)] = merged.map { ($0.key, $0.value) }
        }
        let order = numbering.attributeNames.indices.sorted {
            numbering.attributeNames[$0] < numbering.attributeNames[$1]
        }
        for attribute in order where listed.contains[attribute] {
            let name = numbering.attributeNames[attribute]
            // An attribute with numbers counted by their text has its strings among its labelled values.
            let stringCandidates =
                merges(attribute)
                ? []
                : Self.firstShown(
                    strings.values(of: attribute), of: counts.values, labels: numbering.valueLabels, limit: limit,
                    keepsAll: !selections[attribute].isEmpty)
            let counted = (merges(attribute) ? 0 : strings.counted[attribute]) + labelledValues[attribute].count
            let selected = selections[attribute]
            let candidates =
                stringCandidates.map {
                    (label: numbering.valueLabels[Int($0)], count: Int(counts.values[Int($0)]), number: Int32($0))
                } + labelledValues[attribute].map { (label: $0.label, count: $0.count, number: Int32(-1)) }
            let (values, more) = Self.ordered(
                candidates.map {
                    FacetValue(
                        value: $0.label, count: $0.count, selected: !selected.isEmpty && selected.contains($0.label),
                        labelNumber: $0.number)
                },
                selected: selected, limit: limit, counted: counted)
            if values.isEmpty { continue }
            out.append(
                Facet(
                    name: name, kind: numbering.buckets[attribute] != nil ? .number : .string, values: values,
                    moreValues: more))
        }
        return FacetListing(facets: out, moreFacets: listed.leftOut)
    }

    /// Which attributes get a facet, and the names of those left out (by name).
    ///
    /// An attribute the hits have a value of gets one if it has a selected value, if the request
    /// includes it, or if it is among the first ``SearchRequest/maxFacets`` (all of them counted)
    /// by `weight`, the hits its listed values count (then by name): a catalog of a hundred
    /// attributes would otherwise answer a hundred facets, most of a few hits each, on every
    /// search. Listed values, not all: an attribute of one value an entity (an accession
    /// number) is on as many hits as a useful one but lists a hundred of them, one hit each. The
    /// weight is asked only of attributes that compete for a place.
    private static func listedAttributes(
        numbering: FacetNumbering, request: SearchRequest, selections: [Set<String>],
        seen: UnsafeMutableBufferPointer<Bool>?, counted: (Int) -> Int, weight: (Int) -> Int
    ) -> (contains: [Bool], leftOut: [String]) {
        let names = numbering.attributeNames
        var contains = [Bool](repeating: false, count: names.count)
        let included = Set(request.includedFacets)
        var competing = [Int]()
        var placed = 0
        for attribute in names.indices {
            if let seen, !seen[attribute] { continue }
            if !selections[attribute].isEmpty {
                contains[attribute] = true  // listed even with no count, to show the selection
                placed += 1
            } else if counted(attribute) == 0 {
                continue
            } else if included.contains(names[attribute]) {
                contains[attribute] = true
                placed += 1
            } else {
                competing.append(attribute)
            }
        }
        let places = max(0, (request.maxFacets > 0 ? request.maxFacets : defaultFacets) - placed)
        guard competing.count > places else {
            for attribute in competing { contains[attribute] = true }
            return (contains, [])
        }
        let ranked = competing.map { (attribute: $0, weight: weight($0)) }.sorted {
            $0.weight != $1.weight ? $0.weight > $1.weight : names[$0.attribute] < names[$1.attribute]
        }
        for entry in ranked.prefix(places) { contains[entry.attribute] = true }
        return (contains, ranked.dropFirst(places).map { names[$0.attribute] }.sorted())
    }

    /// The labels of `attribute`'s values that its filters select: the listed values, or for a
    /// numeric attribute the buckets of the listed numbers and the bucket a range is exactly.
    private static func selectedLabels(of attribute: Int, numbering: FacetNumbering, constraints: Constraints)
        -> Set<String>
    {
        let name = numbering.attributeNames[attribute]
        let layout = numbering.buckets[attribute]
        var selected = Set<String>()
        for filter in constraints.filters where filter.attribute == name {
            switch filter.condition {
            case .anyOf(let listed):
                if let layout {
                    for text in listed {
                        if let number = Double(text) { selected.insert(layout.label(layout.index(of: number))) }
                    }
                } else {
                    selected.formUnion(listed)
                }
            case .range(let lo, let hi):
                if let layout, let lo, let hi {
                    let bucket = layout.index(of: lo)
                    if layout.bounds(bucket) == (lo, hi) { selected.insert(layout.label(bucket)) }
                }
            }
        }
        return selected
    }

    /// The first `limit` facet values, most first (then by value), followed by the selected
    /// values beyond them (those without a count included), and how many counted values were
    /// left out.
    ///
    /// A facet of a common label can have thousands of values (brands, authors): only the ones
    /// shown are put in order, the rest are only counted.
    ///
    /// - Parameter counted: How many values have a count, when `values` are only those that can
    ///   be shown (every one counted at least as often as the `limit`-th, and the selected ones).
    static func ordered(_ values: [FacetValue], selected: Set<String>, limit: Int, counted: Int? = nil)
        -> (values: [FacetValue], more: Int)
    {
        var shown: [FacetValue]
        if values.count <= limit {
            shown = values.sorted(by: facetOrder)
        } else {
            // The limit-th largest count: values above it are in, values at it compete by value.
            // A narrow hit set of a wide facet (streets, authors) ties thousands of values at one,
            // so the ties are only sifted for the few that fit, not put in order.
            var counts = values.map(\.count)
            let threshold = kthLargest(&counts, limit)
            shown = values.filter { $0.count > threshold }
            shown += first(limit - shown.count, of: values.lazy.filter { $0.count == threshold }) {
                $0.value < $1.value
            }
            shown.sort(by: facetOrder)
        }
        var beyond = [FacetValue]()
        for value in selected where !shown.contains(where: { $0.value == value }) {
            beyond.append(values.first { $0.value == value } ?? FacetValue(value: value, count: 0, selected: true))
        }
        let more = (counted ?? values.count) - shown.count - beyond.count(where: { $0.count > 0 })
        // Made to size: the evaluation cache keeps these for the next pages, and `shown + …`
        // grew a copy to twice its length (half the cache's facet bytes, unused).
        var ordered = [FacetValue]()
        ordered.reserveCapacity(shown.count + beyond.count)
        ordered += shown
        ordered += beyond.sorted(by: facetOrder)
        return (ordered, more)
    }

    /// The string values of `candidates` (value numbers, `counts` theirs) that a facet listing
    /// `limit` values can show: all of them when they are that few or `keepsAll` (a selection is
    /// looked for among all), else those counted more than the `limit`-th largest count and the
    /// first of those at it by label, as ``ordered(_:selected:limit:counted:)`` picks them.
    ///
    /// A narrow hit set of a wide facet ties thousands of values at one hit: they are sifted
    /// here by number, labels compared in place, so only the shown ones become Strings.
    static func firstShown(
        _ candidates: ArraySlice<Int32>, of counts: CountColumn, labels: ValueLabels, limit: Int, keepsAll: Bool
    ) -> [Int32] {
        guard !keepsAll, candidates.count > limit else { return Array(candidates) }
        guard limit > 0 else { return [] }
        var candidateCounts = candidates.map { Int(counts[Int($0)]) }
        let threshold = kthLargest(&candidateCounts, limit)
        var shown = candidates.filter { Int(counts[Int($0)]) > threshold }
        shown += first(limit - shown.count, of: candidates.lazy.filter { Int(counts[Int($0)]) == threshold }) {
            labels.label(Int($0), precedes: Int($1))
        }
        return shown
    }

    /// The first `k` of `elements` by `precedes`, in that order (equal ones in the order they
    /// come, as a stable sort leaves them): one comparison with the last kept for most. Facet
    /// values tied at a threshold are sifted this way, as values or as value numbers, and
    /// ``top(_:_:by:)`` keeps a few hits in a sort order.
    static func first<Elements: Sequence>(
        _ k: Int, of elements: Elements, by precedes: (Elements.Element, Elements.Element) -> Bool
    ) -> [Elements.Element] {
        var kept = [Elements.Element]()
        guard k > 0 else { return kept }
        kept.reserveCapacity(k)
        for element in elements {
            if kept.count == k {
                guard precedes(element, kept[k - 1]) else { continue }
                kept.removeLast()
            }
            kept.insert(element, at: kept.partitionPoint { precedes(element, $0) })
        }
        return kept
    }

    /// The sum of the `limit` largest of `numbers` (all of them when fewer).
    static func largestSum(_ numbers: [Int], _ limit: Int) -> Int {
        guard numbers.count > limit else { return numbers.reduce(0, +) }
        guard limit > 0 else { return 0 }
        var numbers = numbers
        let threshold = kthLargest(&numbers, limit)
        let above = numbers.filter { $0 > threshold }
        return above.reduce(0, +) + threshold * (limit - above.count)
    }

    /// The `k`-th largest of `numbers` (1-based), reordering them: quickselect, linear on average.
    static func kthLargest(_ numbers: inout [Int], _ k: Int) -> Int {
        var low = 0
        var high = numbers.count - 1
        let target = k - 1
        while low < high {
            let pivot = numbers[(low + high) / 2]
            var i = low
            var j = high
            while i <= j {
                while numbers[i] > pivot { i += 1 }
                while numbers[j] < pivot { j -= 1 }
                if i <= j {
                    numbers.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if target <= j {
                high = j
            } else if target >= i {
                low = i
            } else {
                break
            }
        }
        return numbers[target]
    }
}
