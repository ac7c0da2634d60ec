internal import Synchronization

/// One immutable version of the catalog: segments, the documents deleted from each, and what is
/// derived from them once per snapshot (facet numbering, match-all counts).
///
/// Updates never change a snapshot; they add a segment (and delete bits) in a new snapshot with a
/// higher ``version``. Pages of a search pin the snapshot they started on, so they stay consistent
/// while the catalog changes. Documents are numbered across segments: segment `s` holds documents
/// `bases[s] ..< bases[s] + segments[s].count`, deleted ones included.
public final class CatalogSnapshot: Sendable {
    /// The catalog version: the catalog log's position when there is a log.
    public let version: UInt64
    /// Tells apart snapshots of one version (a merge renumbers documents without changing the
    /// catalog): a page token names both.
    let generation: UInt64
    /// The synonym groups the analyzer was built from.
    public let synonyms: [[String]]
    let analyzer: Analyzer
    let segments: [Segment]
    let deletes: [DeleteSet]
    let bases: [Int32]
    /// Documents of all segments, deleted ones included: the numbering's end.
    let documentCount: Int
    /// Each entity's deep link for results, computed on first use (see ``EntityLinker``).
    let linkCache = LinkCache()
    /// Titles' analyzed terms, as ``titleTerms(of:)`` keeps them.
    let titleTermsCache = Mutex<[Int32: [String]]>([:])
    /// Terms as the segments number them, as ``terms(_:)`` keeps them.
    let termsCache = Mutex<[String: SegmentTerms]>([:])
    /// Exact phrases' lists, as ``phrases(_:)`` keeps them.
    let phrasesCache = Mutex<[UInt64: [SegmentPhrase]]>([:])
    private let derived = Mutex<Derived>(Derived())
    /// The median nearest-other distance of the catalog's built-in prints, once asked for (see
    /// ``medianPrintGap``).
    let printGap = Mutex<Float??>(nil)
    /// This snapshot as one linker serves it (see ``served(by:)``), kept for its next call; a
    /// `nil` view is this snapshot itself (held here, it would never be freed).
    let servedView = Mutex<(linker: EntityLinker, view: CatalogSnapshot?)?>(nil)

    /// What is computed on first use and kept for the snapshot's life.
    private struct Derived {
        var numbering: FacetNumbering?
        var everything: FacetCounts?
        var topCategories: [FacetValue]?
        /// Facet counts of the live documents that have a term, for the terms that were worth it
        /// (see ``SearchEngine/termWorthCounting(_:hits:in:from:)``).
        var terms = KeptTermCounts()
        /// False once the snapshot is replaced: its term counts were carried over to the next
        /// one, and a copy kept here too would hold the budget twice.
        var keepsTermCounts = true
    }

    /// The most bytes of term counts a snapshot keeps (see ``KeptTermCounts`` for which). A
    /// term's counts take about a byte a facet value (see ``CompactFacetCounts``): 0.18 MB on
    /// archive-100k's 180,000 values. At four bytes a value, 8 MiB held 7.5 MiB of them at the
    /// end of a Capture load, and the heap ended 7–10 MiB lower with 4.
    static let termCountsBudget = 4 << 20

    /// Assembles a snapshot.
    init(
        version: UInt64, generation: UInt64, synonyms: [[String]], analyzer: Analyzer, segments: [Segment],
        deletes: [DeleteSet]
    ) {
        precondition(segments.count == deletes.count)
        self.version = version
        self.generation = generation
        self.synonyms = synonyms
        self.analyzer = analyzer
        self.segments = segments
        self.deletes = deletes
        var bases = [Int32]()
        var total = 0
        for segment in segments {
            bases.append(Int32(total))
            total += segment.count
        }
        self.bases = bases
        documentCount = total
        count = total - deletes.reduce(0) { $0 + $1.count }
    }

    /// A snapshot of one segment built from `entities`.
    convenience init(version: UInt64, entities: [Entity], synonyms: [[String]], generation: UInt64 = 1) {
        let analyzer = Analyzer(synonyms: synonyms)
        let segment = Segment(entities: entities, analyzer: analyzer)
        self.init(
            version: version, generation: generation, synonyms: synonyms, analyzer: analyzer, segments: [segment],
            deletes: [DeleteSet(documents: segment.count)])
    }

    /// The snapshot after a change: an upsert adds a segment of its entities and deletes the
    /// documents they replace; a delete only deletes.
    ///
    /// - Returns: The new snapshot, and how many entities the change touched.
    func applying(_ change: CatalogChange, version: UInt64, generation: UInt64) -> (CatalogSnapshot, Int) {
        var segments = self.segments
        var deletes = self.deletes
        var applied = 0
        var removed = [(segment: Int, local: Int)]()
        func remove(_ ref: EntityRef) -> Bool {
            guard let doc = doc(of: ref) else { return false }
            let (si, local) = locate(doc)
            guard deletes[si].insert(local) else { return false }
            removed.append((si, local))
            return true
        }
        switch change {
        case .upsert(let batch):
            for entity in batch { _ = remove(entity.ref) }
            let segment = Segment(entities: batch, analyzer: analyzer)
            segments.append(segment)
            deletes.append(DeleteSet(documents: segment.count))
            applied = batch.count
        case .delete(let refs):
            for ref in refs where remove(ref) { applied += 1 }
        }
        let next = CatalogSnapshot(
            version: version, generation: generation, synonyms: synonyms, analyzer: analyzer, segments: segments,
            deletes: deletes)
        next.inheritDerived(from: self, removed: removed)
        return (next, applied)
    }

    /// This snapshot under another version and generation, with what it derived: for a
    /// snapshot built while its change was being made durable, whose version the log gives only
    /// then. Nothing searched it yet (it was never installed), so nothing else holds it.
    func relabeled(version: UInt64, generation: UInt64) -> CatalogSnapshot {
        let next = CatalogSnapshot(
            version: version, generation: generation, synonyms: synonyms, analyzer: analyzer, segments: segments,
            deletes: deletes)
        let carried = derived.withLock { $0 }
        next.derived.withLock { $0 = carried }
        let terms = termsCache.withLock { $0 }
        next.termsCache.withLock { $0 = terms }
        return next
    }

    /// Takes over what `previous` derived, when its segments are a prefix of this one's (a delete
    /// keeps them, an upsert appends one), brought up to date by the change's documents instead
    /// of computed again by the first search after a write: the facet numbering is extended by
    /// the new segments, and the counts of every live document and the kept term counts lose
    /// the `removed` documents (segment, local number) and gain the new segments' documents.
    /// Counts carry over only while the bucket layouts stay (a number outside an attribute's
    /// range changes them); otherwise the first search computes them again.
    func inheritDerived(from previous: CatalogSnapshot, removed: [(segment: Int, local: Int)]) {
        guard previous.segments.count <= segments.count,
            zip(previous.segments, segments).allSatisfy({ $0 === $1 })
        else { return }
        let (numbering, everything, terms) = previous.derived.withLock { ($0.numbering, $0.everything, $0.terms) }
        guard let numbering else { return }
        let added = previous.segments.count..<segments.count
        let extended = added.isEmpty ? numbering : numbering.extended(with: segments[added])
        guard extended.keepsBucketLayouts(of: numbering) else {
            derived.withLock { $0.numbering = extended }
            return
        }
        var addedDocs = [(segment: Int, local: Int)]()
        for si in added {
            for local in 0..<segments[si].count where !deletes[si].contains(local) { addedDocs.append((si, local)) }
        }
        let inherited = everything.map { everything in
            var counts = everything.padded(to: extended)
            counts.apply(changes(of: extended, removing: removed, adding: addedDocs))
            return counts
        }
        // A write carries the counts over before it answers; searches go between terms.
        var yieldPoint = YieldPoint()
        let inheritedTerms = terms.updating { term, counts in
            yieldPoint.pass()
            // Numbered in this snapshot's cache: the terms worth counting are the searched ones.
            let numbers = self.terms(TermKey(term), after: previous).numbers
            let removedHaving = zip(removed, documents(removed, having: numbers)).filter(\.1).map(\.0)
            let addedHaving = zip(addedDocs, documents(addedDocs, having: numbers)).filter(\.1).map(\.0)
            return counts.padded(to: extended).applying(
                changes(of: extended, removing: removedHaving, adding: addedHaving))
        }
        derived.withLock {
            $0.numbering = extended
            $0.everything = inherited
            $0.terms = inheritedTerms
        }
    }

    /// Takes over what `previous` derived, when this snapshot is `previous` with the segments at
    /// `run` merged into one: the live documents are the same, so the counts of every live
    /// document, the kept term counts and the top categories are too, and the numbering keeps its
    /// numbers with the merged segment mapped to them. Without this, each merge (about one a
    /// second under a steady write load) made the merge lane number the catalog again and the
    /// first capture of each common label count its hits twice.
    func inheritDerived(merging run: Range<Int>, into merged: Segment?, of previous: CatalogSnapshot) {
        guard previous.segments.count == segments.count + run.count - (merged == nil ? 0 : 1) else { return }
        let kept = previous.derived.withLock { $0 }
        guard let numbering = kept.numbering?.replacing(run, of: previous.segments[run], with: merged) else { return }
        derived.withLock {
            $0 = kept
            $0.numbering = numbering
        }
    }

    /// Which of `docs` have the term each segment numbers as in `numbers`: each segment's list
    /// read once, not once a document.
    private func documents(_ docs: [(segment: Int, local: Int)], having numbers: [Int32]) -> [Bool] {
        var found = [Bool](repeating: false, count: docs.count)
        let reads = PostingReads()
        defer { reads.release() }
        for (si, positions) in Dictionary(grouping: docs.indices, by: { docs[$0].segment }) where numbers[si] >= 0 {
            let ascending = positions.sorted { docs[$0].local < docs[$1].local }
            let answers = segments[si].postings(Int(numbers[si]), reads: reads).docs.contains(
                each: ascending.map { UInt32(docs[$0].local) })
            for (answer, position) in zip(answers, ascending) { found[position] = answer }
        }
        return found
    }

    /// What counts in `numbering` lose to `removing`'s documents and gain from `adding`'s, counter
    /// by counter: the counts of every live document and the kept term counts change by these in
    /// place. Through a tally, each kept term cost four bytes a value written and read on every
    /// write, and past the allocator's mapping threshold (archive-1m's 1.5 million values) a
    /// fresh mapping faulted in whole (two kept terms added 5–8 ms to an upsert of 100).
    private func changes(
        of numbering: FacetNumbering, removing: [(segment: Int, local: Int)], adding: [(segment: Int, local: Int)]
    ) -> [(counter: FacetCounter, change: Int32)] {
        var changes = FacetCounterChanges()
        for (si, local) in removing {
            numbering.forEachCounter(of: local, in: segments[si], numbering.segmentNumbers[si]) {
                changes.note($0, up: false)
            }
        }
        for (si, local) in adding {
            numbering.forEachCounter(of: local, in: segments[si], numbering.segmentNumbers[si]) {
                changes.note($0, up: true)
            }
        }
        return changes.netted()
    }

    /// Computes now what the first search would otherwise compute: the facet numbering, the
    /// counts of every live document and the top categories.
    func prepareDerived() {
        _ = topCategories
    }

    /// Whether the numbering and the counts of every live document are there already.
    var isDerived: Bool {
        derived.withLock { $0.numbering != nil && $0.everything != nil && $0.topCategories != nil }
    }

    /// Drops the kept term counts and keeps none from now on: for a snapshot just replaced,
    /// whose counts the next one took over. Its numbering and the counts of every live document
    /// stay (see ``SearchEngine``'s install); the few searches still on it count their hits.
    func stopKeepingTermCounts() {
        derived.withLock {
            $0.terms.removeAll()
            $0.keepsTermCounts = false
        }
    }

    /// Drops what was derived (numbering, counts, links): a replaced snapshot kept for page
    /// tokens computes them again if a token ever comes back, instead of holding them meanwhile.
    func dropDerived() {
        derived.withLock {
            $0 = Derived()
            $0.keepsTermCounts = false
        }
        linkCache.clear()
        titleTermsCache.withLock { $0 = [:] }
        servedView.withLock { $0 = nil }
    }

    /// Set once a search on this snapshot handed out a page token: only such snapshots are worth
    /// keeping after they are replaced (see ``SearchEngine``'s retention).
    let handedOutPageToken = Atomic<Bool>(false)

    /// The number of entities.
    public let count: Int

    /// Every entity, materialized from the segments in document order: for tools and tests; a
    /// query never needs it.
    public var entities: [Entity] {
        var out = [Entity]()
        out.reserveCapacity(count)
        for (si, segment) in segments.enumerated() {
            for doc in 0..<segment.count where !deletes[si].contains(doc) { out.append(segment.entity(doc)) }
        }
        return out
    }

    /// The entity with this reference, if the snapshot has it.
    public func entity(_ ref: EntityRef) -> Entity? {
        doc(of: ref).map(entity(at:))
    }

    /// The dimension of a model's prints in this snapshot, if any entity has one.
    public func dimension(ofModel model: String) -> Int? {
        for segment in segments.reversed() { if let rows = segment.vectors[model] { return rows.dimension } }
        return nil
    }

    // MARK: Documents

    /// The segment of a document and its number there.
    @inline(__always) func locate(_ doc: Int32) -> (segment: Int, local: Int) {
        var si = segments.count - 1
        while bases[si] > doc { si -= 1 }
        return (si, Int(doc - bases[si]))
    }

    /// The live document with this reference: the newest segment's, since an upsert deletes the
    /// older one.
    func doc(of ref: EntityRef) -> Int32? {
        // Hashed once, not once per segment (a write looks up each of its entities this way).
        let hash = Segment.hash(type: ref.type, id: ref.id)
        for si in segments.indices.reversed() {
            if let local = segments[si].doc(of: ref, hash: hash), !deletes[si].contains(local) {
                return bases[si] + Int32(local)
            }
        }
        return nil
    }

    /// The whole entity of a document.
    func entity(at doc: Int32) -> Entity {
        let (si, local) = locate(doc)
        return segments[si].entity(local)
    }

    /// Splits `items`, in ascending document order, into the runs that fall in one segment each,
    /// so a caller prepares per-segment state (compiled constraints, number maps) once per run.
    ///
    /// - Parameters:
    ///   - doc: The document of an item.
    ///   - body: Called per run with the segment's index.
    func forEachSegmentRun<Items: Collection>(
        of items: Items, doc: (Items.Element) -> Int32, _ body: (_ segment: Int, _ run: Items.SubSequence) -> Void
    ) {
        var start = items.startIndex
        while start != items.endIndex {
            let (si, _) = locate(doc(items[start]))
            let end = si + 1 < segments.count ? bases[si + 1] : Int32.max
            var stop = start
            while stop != items.endIndex && doc(items[stop]) < end { stop = items.index(after: stop) }
            body(si, items[start..<stop])
            start = stop
        }
    }

    /// The live documents, ascending.
    func liveDocs() -> [Int32] {
        var out = [Int32]()
        out.reserveCapacity(count)
        for (si, segment) in segments.enumerated() {
            let base = bases[si]
            let deleted = deletes[si]
            for local in 0..<segment.count where deleted.count == 0 || !deleted.contains(local) {
                out.append(base + Int32(local))
            }
        }
        return out
    }

    // MARK: Derived, once per snapshot

    /// The facet values numbered across segments.
    var numbering: FacetNumbering {
        if let known = derived.withLock({ $0.numbering }) { return known }
        let computed = FacetNumbering(segments: segments)
        derived.withLock { $0.numbering = computed }
        return computed
    }

    /// Facet counts over every live document: each segment's totals, less its deleted documents.
    var everythingCounts: FacetCounts {
        if let known = derived.withLock({ $0.everything }) { return known }
        let numbering = self.numbering
        let tally = FacetTally(numbering)
        for (si, segment) in segments.enumerated() {
            let totals = segment.totals
            let numbers = numbering.segmentNumbers[si]
            for (local, total) in totals.types.enumerated() { tally.types[Int(numbers.types[local])] += total }
            for (local, total) in totals.categories.enumerated() {
                tally.categories[Int(numbers.categories[local])] += total
            }
            for local in 0..<segment.valueStrings.count {
                tally.values[Int(numbers.values[local])] += totals.values[local]
            }
            for local in 0..<numbers.attributes.count {
                let global = Int(numbers.attributes[local])
                if let layout = numbering.buckets[global] {
                    let start = Int(numbering.bucketStart[global])
                    totals.addCounts(
                        attribute: UInt32(local), of: segment, in: layout,
                        to: UnsafeMutableBufferPointer(rebasing: tally.buckets[start..<(start + layout.count)]))
                } else {
                    for id in segment.numberIDs(of: UInt32(local)) where totals.values[Int(id)] != 0 {
                        tally.textNumbers[Int32(global), default: [:]][formatNumber(segment.number(id)), default: 0] +=
                            totals.values[Int(id)]
                    }
                }
            }
            for local in deletes[si].docs { tally.add(local, of: segment, numbers, sign: -1) }
        }
        let counts = tally.counts
        derived.withLock { $0.everything = counts }
        return counts
    }

    /// The kept facet counts of the live documents that have `term`, if any; the ask counts
    /// toward the term's place (see ``KeptTermCounts``).
    func termCounts(_ term: String) -> CompactFacetCounts? {
        derived.withLock { $0.terms.ask(term) }
    }

    /// Keeps `counts` as the facet counts of the live documents that have `term`, if they fit or
    /// the term was asked for more often than those they would push out (see ``KeptTermCounts``).
    func keepTermCounts(_ counts: FacetCounts, of term: String) {
        // A byte a counter at least: counts that would not be kept even so are not made smaller
        // (a pass over every value, 1.5 million on archive-1m).
        let counters = counts.types.count + counts.categories.count + counts.values.count + counts.buckets.count
        let admitted = derived.withLock {
            $0.keepsTermCounts && $0.terms.admits(term, bytes: counters, budget: Self.termCountsBudget)
        }
        guard admitted else { return }
        let compact = CompactFacetCounts(counts)
        derived.withLock { derived in
            guard derived.keepsTermCounts else { return }
            derived.terms.keep(compact, of: term, budget: Self.termCountsBudget)
        }
    }

    /// Top-level categories with their live entity counts, most first: what the browse state
    /// offers when nothing matches.
    var topCategories: [FacetValue] {
        if let known = derived.withLock({ $0.topCategories }) { return known }
        let numbering = self.numbering
        let counts = everythingCounts
        var out = [FacetValue]()
        for number in 0..<numbering.categoryNames.count
        where numbering.categoryParent[number] < 0 && counts.categories[number] > 0 {
            out.append(
                FacetValue(
                    value: numbering.categoryNames[number], count: Int(counts.categories[number]), selected: false))
        }
        out.sort(by: SearchEngine.facetOrder)
        derived.withLock { $0.topCategories = out }
        return out
    }
}

/// Equal-width buckets over a numeric attribute's range, with a "nice" width (1, 2 or 5 × 10ⁿ)
/// giving at most ten buckets. Integral attributes (years) get inclusive integer bounds, written
/// `1960..1969`; others are half-open `[lo, hi)` except the last, written `0..10`.
struct NumberBuckets: Sendable, Hashable {
    let start: Double
    let width: Double
    let count: Int
    let integral: Bool

    init(min: Double, max: Double, integral: Bool) {
        // The span of two finite numbers can pass Double's range (−1e308 to 1e308); its tenth,
        // taken from the tenths of the ends, cannot.
        let span = max - min
        let raw = span.isFinite ? span / 10 : max / 10 - min / 10
        var width = 1.0
        if raw > 0 {
            let magnitude = pow10(log10Double(raw))
            width = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
            // A tenth of the smallest spans underflows the power of ten to zero.
            if !(width > 0) { width = raw }
            if integral { width = Swift.max(1, width.rounded(.up)) }
        }
        self.width = width
        let start = (min / width).rounded(.down) * width
        self.start = start.isFinite ? start : min
        count = Self.index(of: max, start: self.start, width: width, count: Self.mostBuckets) + 1
        self.integral = integral
    }

    /// More than the layout ever makes (ten; eleven or twelve when the ends sit on buckets' edges
    /// and rounding pushes one across): a bound, not a limit in use.
    static let mostBuckets = 16

    func index(of value: Double) -> Int {
        Self.index(of: value, start: start, width: width, count: count)
    }

    /// The bucket of `value` in a layout of `count` buckets from `start`, `width` wide, clamped to
    /// the layout: the first bucket below `start`, the last past the end.
    @inline(__always) static func index(of value: Double, start: Double, width: Double, count: Int) -> Int {
        var quotient = (value - start) / width
        if !quotient.isFinite { quotient = value / width - start / width }
        // Below 1 is the first bucket; from 1 on, truncation is the floor (without a call to
        // libm's floor per pair counted). NaN fails every comparison and lands in the first
        // bucket; no finite number makes one.
        guard quotient >= 1 else { return 0 }
        return quotient < Double(count - 1) ? Int(quotient) : count - 1
    }

    /// The bucket's bounds as a range filter would state them: finite, so that the filter a
    /// client makes of them is accepted.
    func bounds(_ i: Int) -> (min: Double, max: Double) {
        let lo = finite(start + Double(i) * width)
        return (lo, finite(integral ? lo + (width - 1) : lo + width))
    }

    func label(_ i: Int) -> String {
        let bucket = bounds(i)
        return "\(formatNumber(bucket.min))..\(formatNumber(bucket.max))"
    }
}

/// `x` within Double's finite range.
private func finite(_ x: Double) -> Double {
    Swift.min(Swift.max(x, -.greatestFiniteMagnitude), .greatestFiniteMagnitude)
}

private func pow10(_ x: Double) -> Double {
    var result = 1.0
    var exponent = Int(x)
    if exponent >= 0 {
        while exponent > 0 {
            result *= 10
            exponent -= 1
        }
    } else {
        while exponent < 0 {
            result /= 10
            exponent += 1
        }
    }
    return result
}

private func log10Double(_ x: Double) -> Double {
    // Enough precision for choosing an order of magnitude, without Foundation.
    var exponent = 0.0
    var scaled = x
    while scaled >= 10 {
        scaled /= 10
        exponent += 1
    }
    while scaled < 1 {
        scaled *= 10
        exponent -= 1
    }
    return exponent
}
