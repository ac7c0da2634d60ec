/// One matching document with everything the ranking and the display need.
///
/// The fields are declared widest first (28 bytes a candidate, not 36): a common label makes a
/// candidate for most documents, and each byte is written and read again per match.
struct Candidate: Sendable {
    var doc: Int32
    /// The fused score.
    var score: Float
    /// The usable text groups it matched, one bit per position in ``Ranker/usableGroups(_:)``
    /// (at most 32); a bit set instead of an array keeps candidates allocation-free.
    var matchedGroups: UInt32
    var textScore: Float?
    var distance: Float?
    /// Exact title/tag hits of a label rank before everything else.
    var exact: Bool
    /// How many text groups it matched, when that orders it (text rankings; 0 once fused with
    /// image matches, where reciprocal ranks decide): more captured labels matched ranks first.
    var coverage: UInt8

    init(
        doc: Int32, exact: Bool, score: Float, textScore: Float?, distance: Float?, matchedGroups: UInt32,
        coverage: UInt8 = 0
    ) {
        self.doc = doc
        self.score = score
        self.matchedGroups = matchedGroups
        self.textScore = textScore
        self.distance = distance
        self.exact = exact
        self.coverage = coverage
    }

    var match: MatchKind {
        switch (textScore != nil, distance != nil) {
        case (true, true): .textAndImage
        case (false, true): .image
        default: .text
        }
    }
}

/// A text group: analyzed terms that must all be present, weighted by label confidence.
struct TextGroup: Sendable {
    var display: String
    var terms: [String]
    var weight: Float
}

/// Text and image matching, fused into one ranking.
enum Ranker {
    /// Reciprocal-rank-fusion constant.
    static let rrfK: Float = 60

    enum Mode {
        /// A document matches when it matches any group (the sheet: a union of labels).
        case any
        /// A document must match every group (a refined search: chips and free text narrow).
        case all
    }

    /// Ranks the snapshot for text groups and image prints.
    ///
    /// - Parameter ordered: `false` leaves the candidates in document order, for a caller that
    ///   counts facets over all of them (sequential memory access) and orders only what it shows
    ///   (``top(_:_:)``).
    /// - Returns: Candidates, best first: more groups matched (text only), exact hits, then score,
    ///   then document number (only the best `topK` when given), or in document order when not
    ///   `ordered`. `nil` when there was nothing to match on (no groups, no prints), so the caller
    ///   can browse instead.
    /// - Parameters:
    ///   - splitFrom: The matches expected from which matching is worth two cores.
    ///   - pictureMatch: The catalog picture a query's pixels were answered with (see
    ///     ``SearchEngine/pictureAnswer(of:source:in:)``), fused as an image hit of its own.
    static func rank(
        _ snapshot: CatalogSnapshot, groups: [TextGroup], mode: Mode, prints: [FeaturePrint], maxDistance: Float?,
        imageLimit: Int, topK: Int? = nil, ordered: Bool = true, splitFrom: Int = matchesWorthASecondCore,
        pictureMatch: (doc: Int32, distance: Float)? = nil
    ) -> [Candidate]? {
        let usableIndices = usableGroups(groups)
        if usableIndices.isEmpty && prints.isEmpty && pictureMatch == nil { return nil }
        var text = [Candidate]()
        let used = usableIndices.map { groups[$0] }
        // One group (a single label, the common case), or groups that must all match: one
        // intersection of all their terms. Otherwise any group may match: their matches merged.
        let intersects = used.count == 1 || mode == .all
        /// The text candidates of the documents in `range`, in document order.
        func candidates(in range: Range<Int32>) -> [Candidate] {
            intersects
                ? allGroupsMatches(used, in: snapshot, range: range) : anyGroupMatches(used, in: snapshot, range: range)
        }
        // How many matches to expect: the rarest term's documents (of each group, when any matches).
        let rarest = used.map { group in
            group.terms.map { TextIndex.documentFrequency($0, in: snapshot) }.min() ?? 0
        }
        let expected = intersects ? rarest.min() ?? 0 : rarest.reduce(0, +)
        if !used.isEmpty && TwoCores.pays(expected, from: splitFrom) {
            // Many matches to score: the lower and the upper half of the document numbers on two
            // cores. With nothing to fuse, each half also keeps only its best: the best of both
            // are the best of all.
            let keepsBest = ordered && prints.isEmpty && topK != nil
            let ranges = TwoCores.halves(of: snapshot)
            let halves = TwoCores.map { half in
                let list = candidates(in: ranges[half])
                return (candidates: keepsBest ? top(list, topK) : list, count: list.count)
            }
            if keepsBest, let topK {
                // What top(_:_:) of all of them answers: the best topK, or all in order when few.
                let best = sorted(halves[0].candidates + halves[1].candidates)
                return (halves[0].count + halves[1].count) / 4 > topK ? Array(best.prefix(topK)) : best
            }
            text = halves[0].candidates + halves[1].candidates
        } else if !used.isEmpty {
            text = candidates(in: Int32.min..<Int32.max)
        }
        var imageLists = [[(doc: Int32, distance: Float)]]()
        for print in prints {
            let threshold =
                maxDistance ?? (print.model == FeaturePrinter.model ? FeaturePrinter.defaultMaxDistance : 0.25)
            imageLists.append(nearest(print, in: snapshot, maxDistance: threshold, limit: imageLimit))
        }
        // The picture ImageMatchRule answered is an image hit whatever its print distance: a
        // verified crop or tilted photo of it may lie beyond any print threshold.
        if let pictureMatch { imageLists.append([pictureMatch]) }
        var out: [Candidate]
        if imageLists.isEmpty {
            return ordered ? top(text, topK) : text
        } else {
            var fused = [Int32: Candidate]()
            let textOrder = sorted(text)
            for (rank, candidate) in textOrder.enumerated() {
                var candidate = candidate
                candidate.score = 1 / (rrfK + Float(rank + 1))
                candidate.coverage = 0
                fused[candidate.doc] = candidate
            }
            for list in imageLists {
                for (rank, hit) in list.enumerated() {
                    let add = 1 / (rrfK + Float(rank + 1))
                    if var candidate = fused[hit.doc] {
                        candidate.score += add
                        candidate.distance = min(candidate.distance ?? .infinity, hit.distance)
                        fused[hit.doc] = candidate
                    } else {
                        fused[hit.doc] = Candidate(
                            doc: hit.doc, exact: false, score: add, textScore: nil, distance: hit.distance,
                            matchedGroups: 0)
                    }
                }
            }
            out = Array(fused.values)
        }
        return ordered ? top(out, topK) : out.sorted { $0.doc < $1.doc }
    }

    /// The documents matching every one of `groups` in document order, and the best `k` of them
    /// as candidates in ranking order: what a search without constraints or prints needs (its
    /// facets read documents, its pages only the best), without a candidate made, kept and
    /// ordered for every match of a common label. `nil` when no group has terms.
    ///
    /// - Parameter splitFrom: The matches expected from which matching is worth two cores.
    static func bestMatchingAll(
        _ snapshot: CatalogSnapshot, groups: [TextGroup], k: Int, splitFrom: Int = matchesWorthASecondCore
    ) -> (docs: [Int32], best: [Candidate])? {
        let used = usableGroups(groups).map { groups[$0] }
        guard !used.isEmpty, k > 0 else { return nil }
        func part(_ range: Range<Int32>) -> (docs: [Int32], best: [Candidate]) {
            let sink = matchingAll(used, in: snapshot, range: range) { BestCandidates(make: $0, k: k) }
            return (sink.docs, sink.best)
        }
        let expected =
            used.map { group in
                group.terms.map { TextIndex.documentFrequency($0, in: snapshot) }.min() ?? 0
            }.min() ?? 0
        guard TwoCores.pays(expected, from: splitFrom) else { return part(Int32.min..<Int32.max) }
        let ranges = TwoCores.halves(of: snapshot)
        let halves = TwoCores.map { half in part(ranges[half]) }
        return (halves[0].docs + halves[1].docs, Array(sorted(halves[0].best + halves[1].best).prefix(k)))
    }

    /// The documents in `range` that match every one of `groups`, in document order, made into
    /// candidates as the intersection finds them (one pass, no intermediate lists).
    private static func allGroupsMatches(_ groups: [TextGroup], in snapshot: CatalogSnapshot, range: Range<Int32>)
        -> [Candidate]
    {
        matchingAll(groups, in: snapshot, range: range) { AllGroupsCandidates(make: $0) }.candidates
    }

    /// The documents in `range` that match every one of `groups`, handed as they are found to
    /// the sink `makeSink` builds around what makes their candidates.
    private static func matchingAll<Sink: MatchSink>(
        _ groups: [TextGroup], in snapshot: CatalogSnapshot, range: Range<Int32>,
        _ makeSink: (AllGroupsCandidate) -> Sink
    ) -> Sink {
        let exact = exactHits(of: groups, in: snapshot, range: range)
        var sink = makeSink(AllGroupsCandidate(groupCount: groups.count, exact: exact?.lookup ?? .empty))
        withExtendedLifetime(exact) {
            TextIndex.matchEvery(groups.map { ($0.terms, $0.weight) }, in: snapshot, range: range, into: &sink)
        }
        return sink
    }

    /// A segment's exact hits of one phrase within a range: decoded numbers, or the bits of a
    /// phrase many documents have, with the segment's documents the range covers.
    private enum PhrasePart {
        case numbers([UInt32])
        case bits(DenseProbe, Range<Int>)
    }

    /// The documents in `range` whose title or a tag is exactly one of `groups` (deleted ones
    /// too: only matches, which are live, are looked up), or `nil` when there are none.
    private static func exactHits(of groups: [TextGroup], in snapshot: CatalogSnapshot, range: Range<Int32>)
        -> DocumentBits?
    {
        // Each segment's part of each group's list within the range (each half of a split asks
        // for its own), then a set over the span they cover: most labels have no exact hits or a
        // few, and a set over the whole range was a bit per document to clear for them.
        var parts = [(docs: PhrasePart, base: Int32)]()
        var span: (low: Int32, high: Int32)? = nil
        let reads = PostingReads()
        defer { reads.release() }
        for group in groups {
            for phrase in snapshot.phrases(Segment.hash(phrase: group.terms)) {
                let base = snapshot.bases[phrase.segment]
                let segment = snapshot.segments[phrase.segment]
                // The segment's documents the range covers (none when it lies before or past them).
                let low = max(Int(range.lowerBound) - Int(base), 0)
                let high = min(Int(range.upperBound) - Int(base), segment.count)
                guard low < high else { continue }
                let locals = low..<high
                let part: PhrasePart
                let first: Int
                let last: Int
                switch segment.phraseDocs(phrase.phrase, reads: reads) {
                case .gaps(let list):
                    let docs = list.withDecoded { docs in
                        let from = docs.partitionPoint { Int($0) >= locals.lowerBound }
                        let to = docs.partitionPoint { Int($0) >= locals.upperBound }
                        return Array(docs[from..<max(from, to)])
                    }
                    guard let low = docs.first, let high = docs.last else { continue }
                    (part, first, last) = (.numbers(docs), Int(low), Int(high))
                case .bits(let probe):
                    guard let low = probe.firstDocument(in: locals), let high = probe.lastDocument(in: locals)
                    else { continue }
                    (part, first, last) = (.bits(probe, locals), low, high)
                }
                parts.append((part, base))
                let spanLow = base + Int32(first)
                let spanHigh = base + Int32(last) + 1
                span = span.map { (min($0.low, spanLow), max($0.high, spanHigh)) } ?? (spanLow, spanHigh)
            }
        }
        guard let span else { return nil }
        let bits = DocumentBits(span.low..<span.high, documentCount: snapshot.documentCount)
        for part in parts {
            switch part.docs {
            case .numbers(let docs): bits.insert(docs[...], base: part.base)
            case .bits(let probe, let locals): bits.insert(probe, locals, base: part.base)
            }
        }
        return bits
    }

    /// The documents in `range` that match any of `groups`, in document order: each group's
    /// matches (in document order) merged, one cursor per group, folding a document's groups as
    /// they meet (no sort; memory follows the matches).
    private static func anyGroupMatches(_ groups: [TextGroup], in snapshot: CatalogSnapshot, range: Range<Int32>)
        -> [Candidate]
    {
        var lists = [(docs: [Int32], scores: [Float], weight: Float)]()
        // Exact title/tag hits per group, in document order too, so one cursor per group
        // replaces a hash set.
        var exactLists = [[Int32]]()
        for group in groups {
            let matches = TextIndex.matchEvery([(group.terms, 1)], in: snapshot, range: range)
            lists.append((matches.docs, matches.scores, group.weight))
            exactLists.append(
                matches.docs.isEmpty
                    ? [] : TextIndex.exactMatches(group.terms, in: snapshot).filter { range.contains($0) })
        }
        return merge(lists, exactLists: exactLists)
    }

    /// The matches expected (the rarest term's documents, summed over the groups when any may
    /// match) from which matching is split across two cores: below it, the second core's
    /// wake-up costs more than half the matching saves (chosen on the shop and sparse catalogs).
    static let matchesWorthASecondCore = 16_384

    /// Merges groups' matches (each in document order) into their union in document order, one
    /// cursor per group, folding a document's groups as they meet. The lists are copied into
    /// flat buffers first, so the loop per document reads memory and touches no reference counts.
    private static func merge(
        _ lists: [(docs: [Int32], scores: [Float], weight: Float)], exactLists: [[Int32]]
    ) -> [Candidate] {
        let count = lists.count
        let total = lists.reduce(0) { $0 + $1.docs.count }
        let exactTotal = exactLists.reduce(0) { $0 + $1.count }
        let docs = filledBuffer(total, Int32(0))
        let scores = filledBuffer(total, Float(0))
        let exact = filledBuffer(exactTotal, Int32(0))
        // Per list: where its documents (and exact hits) are, its cursors and weight.
        let cursor = filledBuffer(count, 0)
        let end = filledBuffer(count, 0)
        let exactCursor = filledBuffer(count, 0)
        let exactEnd = filledBuffer(count, 0)
        let weight = filledBuffer(count, Float(0))
        defer {
            docs.baseAddress?.deallocate()
            scores.baseAddress?.deallocate()
            exact.baseAddress?.deallocate()
            for buffer in [cursor, end, exactCursor, exactEnd] { buffer.baseAddress?.deallocate() }
            weight.baseAddress?.deallocate()
        }
        var at = 0
        var exactAt = 0
        for (position, list) in lists.enumerated() {
            cursor[position] = at
            _ = UnsafeMutableBufferPointer(rebasing: docs[at..<(at + list.docs.count)]).initialize(from: list.docs)
            _ = UnsafeMutableBufferPointer(rebasing: scores[at..<(at + list.docs.count)]).initialize(from: list.scores)
            at += list.docs.count
            end[position] = at
            weight[position] = list.weight
            let exactList = exactLists[position]
            exactCursor[position] = exactAt
            _ = UnsafeMutableBufferPointer(rebasing: exact[exactAt..<(exactAt + exactList.count)]).initialize(
                from: exactList)
            exactAt += exactList.count
            exactEnd[position] = exactAt
        }
        var out = [Candidate]()
        out.reserveCapacity(total)
        while true {
            var doc = Int32.max
            for position in 0..<count where cursor[position] < end[position] {
                doc = min(doc, docs[cursor[position]])
            }
            if doc == .max { break }
            var score: Float = 0
            var matched: UInt32 = 0
            var isExact = false
            for position in 0..<count {
                let at = cursor[position]
                guard at < end[position], docs[at] == doc else { continue }
                score += scores[at] * weight[position]
                matched |= 1 << UInt32(position)
                cursor[position] = at + 1
                var e = exactCursor[position]
                while e < exactEnd[position] && exact[e] < doc { e += 1 }
                exactCursor[position] = e
                if e < exactEnd[position] && exact[e] == doc { isExact = true }
            }
            out.append(
                Candidate(
                    doc: doc, exact: isExact, score: score, textScore: score, distance: nil, matchedGroups: matched,
                    coverage: UInt8(matched.nonzeroBitCount)))
        }
        return out
    }

    /// The live documents whose prints of `print`'s model are nearest to it, nearest first (ties by
    /// document number): each segment's scan, merged.
    static func nearest(
        _ print: FeaturePrint, in snapshot: CatalogSnapshot, maxDistance: Float, limit: Int
    ) -> [(doc: Int32, distance: Float)] {
        var merged = [(doc: Int32, distance: Float)]()
        for (si, segment) in snapshot.segments.enumerated() {
            guard let rows = segment.vectors[print.model], rows.dimension == print.values.count else { continue }
            let deleted = snapshot.deletes[si]
            // Deleted rows may take places in a segment's answer: ask for that many more.
            let hits = rows.search(print.values, maxDistance: maxDistance, limit: limit + deleted.count)
            for hit in hits where !deleted.contains(Int(hit.doc)) {
                merged.append((snapshot.bases[si] + hit.doc, hit.distance))
            }
        }
        if snapshot.segments.count > 1 {
            merged.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.doc < $1.doc }
        }
        return Array(merged.prefix(limit))
    }

    /// The positions in `groups` of the groups that take part in matching: those with terms, at
    /// most 32.
    static func usableGroups(_ groups: [TextGroup]) -> [Int] {
        Array(groups.indices.filter { !groups[$0].terms.isEmpty }.prefix(32))
    }

    /// The display texts of the groups a candidate matched, in group order.
    static func matchedTerms(_ mask: UInt32, groups: [TextGroup], usable: [Int]) -> [String] {
        guard mask != 0 else { return [] }
        var out = [String]()
        for (k, index) in usable.enumerated() where mask & (1 << UInt32(k)) != 0 { out.append(groups[index].display) }
        return out
    }

    /// The best `k` candidates in order, without sorting them all when `k` is small.
    static func top(_ candidates: [Candidate], _ k: Int?) -> [Candidate] {
        guard let k, candidates.count / 4 > k else { return sorted(candidates) }
        return candidates.withUnsafeBufferPointer { top(of: $0, k) }
    }

    /// ``top(_:_:)``, a long list's halves on two cores: the best `k` of all are among the best
    /// `k` of each half.
    ///
    /// - Parameter splitFrom: The candidates from which a second core pays.
    static func top(_ candidates: [Candidate], _ k: Int, splitFrom: Int) -> [Candidate] {
        guard candidates.count / 4 > k, TwoCores.pays(candidates.count, from: splitFrom) else {
            return top(candidates, k)
        }
        let best = candidates.withUnsafeBufferPointer { all in
            let middle = all.count / 2
            let halves = [UnsafeBufferPointer(rebasing: all[..<middle]), UnsafeBufferPointer(rebasing: all[middle...])]
            return TwoCores.map { half in top(of: halves[half], k) }
        }
        return Array(sorted(best[0] + best[1]).prefix(k))
    }

    /// Candidates from which ordering them is worth two cores: twice the matches that make
    /// matching worth it, as comparing a candidate with the worst kept one costs less than
    /// matching a posting (not measured on its own: captures from labels keep only their best
    /// while matching, so this orders constrained searches).
    static let candidatesWorthASecondCore = 2 * matchesWorthASecondCore

    /// The best `k` of `candidates` (more than `k`) in order: each compared with the worst kept.
    private static func top(of candidates: UnsafeBufferPointer<Candidate>, _ k: Int) -> [Candidate] {
        guard candidates.count / 4 > k else { return sorted(Array(candidates)) }
        var kept = [Candidate]()
        kept.reserveCapacity(k + 1)
        // Most candidates lose to the worst kept one: that comparison reads no array.
        var worst: Candidate? = nil
        for candidate in candidates {
            if let worst, !better(candidate, worst) { continue }
            var position = kept.count
            while position > 0 && better(candidate, kept[position - 1]) { position -= 1 }
            kept.insert(candidate, at: position)
            if kept.count > k { kept.removeLast() }
            if kept.count == k { worst = kept[k - 1] }
        }
        return kept
    }

    static func better(_ a: Candidate, _ b: Candidate) -> Bool {
        if a.coverage != b.coverage { return a.coverage > b.coverage }
        if a.exact != b.exact { return a.exact }
        if a.score != b.score { return a.score > b.score }
        return a.doc < b.doc
    }

    /// `candidates` in ``better(_:_:)``'s order.
    ///
    /// Sorts a 16-byte key per candidate (``RankKey``) and gathers the candidates once, instead of
    /// moving 40-byte candidates through a four-field comparison: the sort of a sheet's hundred
    /// candidates was a fifth of an uncached Query's search.
    static func sorted(_ candidates: [Candidate]) -> [Candidate] {
        guard candidates.count > 1 else { return candidates }
        var keys = candidates.enumerated().map { RankKey($0.element, position: $0.offset) }
        keys.sort { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
        return keys.map { candidates[Int(UInt32(truncatingIfNeeded: $0.low))] }
    }
}

/// A candidate's place in ``Ranker/better(_:_:)``'s order as two integers that sort ascending:
/// more groups covered, then an exact hit, then a higher score, then a lower document number.
struct RankKey {
    /// Coverage, exactness and score, each inverted so that better is smaller.
    let high: UInt64
    /// The document number (offset so that negative numbers sort first), then the candidate's
    /// position in the list being sorted (never compared apart from the document: document
    /// numbers are unique in a ranking).
    let low: UInt64

    init(_ candidate: Candidate, position: Int) {
        let coverage = UInt64(UInt8.max - candidate.coverage)
        let inexact: UInt64 = candidate.exact ? 0 : 1
        high = coverage << 40 | inexact << 32 | UInt64(Self.descending(candidate.score))
        low =
            UInt64(UInt32(bitPattern: candidate.doc) ^ 0x8000_0000) << 32 | UInt64(UInt32(truncatingIfNeeded: position))
    }

    /// A float's bits mapped so that a larger float gives a smaller integer (−0 and 0 alike).
    static func descending(_ value: Float) -> UInt32 {
        let bits = value == 0 ? 0 : value.bitPattern
        // Negative floats order inversely by their bits: flip them all; positive ones: set the sign.
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return ~ascending
    }
}

/// What every candidate of a match of all groups shares (the groups' bits, how many they are)
/// and the exact hits that tell them apart, making each candidate as it is found.
private struct AllGroupsCandidate {
    /// Exact title or tag hits (of a set the caller keeps alive).
    let exact: DocumentBits.Lookup
    let all: UInt32
    let coverage: UInt8

    init(groupCount: Int, exact: DocumentBits.Lookup) {
        self.exact = exact
        all = groupCount == 32 ? .max : (1 << UInt32(groupCount)) - 1
        coverage = UInt8(groupCount)
    }

    @inline(__always) func callAsFunction(_ doc: Int32, score: Float) -> Candidate {
        Candidate(
            doc: doc, exact: exact.contains(doc), score: score, textScore: score, distance: nil, matchedGroups: all,
            coverage: coverage)
    }
}

/// Candidates of documents that match every group, made as ``TextIndex/matchEvery(_:in:range:into:)``
/// finds them.
private struct AllGroupsCandidates: MatchSink {
    let make: AllGroupsCandidate
    var candidates = [Candidate]()

    init(make: AllGroupsCandidate) { self.make = make }

    mutating func reserve(more count: Int) { candidates.reserveCapacity(candidates.count + count) }

    mutating func add(_ doc: Int32, score: Float) { candidates.append(make(doc, score: score)) }
}

/// The documents that match every group, and the best `k` of them as candidates in ranking
/// order, kept as ``TextIndex/matchEvery(_:in:range:into:)`` finds them: most matches lose to the
/// worst kept one in one comparison of integers.
private struct BestCandidates: MatchSink {
    let make: AllGroupsCandidate
    /// How many to keep (at least one).
    let k: Int
    var docs = [Int32]()
    /// At most `k`, best first, and their keys (see ``key(exact:score:doc:)``).
    var best = [Candidate]()
    private var bestKeys = [UInt64]()
    /// The key of the worst kept candidate once `k` are kept; until then every match is kept.
    private var worstKey = UInt64.max

    init(make: AllGroupsCandidate, k: Int) {
        self.make = make
        self.k = k
        best.reserveCapacity(k + 1)
        bestKeys.reserveCapacity(k + 1)
    }

    mutating func reserve(more count: Int) { docs.reserveCapacity(docs.count + count) }

    @inline(__always) mutating func add(_ doc: Int32, score: Float) {
        docs.append(doc)
        // As an exact match its key is the least it can have: a match that would lose even so
        // loses without looking its exactness up (most of a common label's, once `k` exact ones
        // are kept).
        if Self.key(exact: true, score: score, doc: doc) >= worstKey { return }
        let key = Self.key(exact: make.exact.contains(doc), score: score, doc: doc)
        // Field by field (``Ranker/better(_:_:)``), whether a match is exact and how its score
        // compares were branches the processor mispredicted for a common label's matches.
        if key >= worstKey { return }
        let position = bestKeys.partitionPoint { $0 > key }
        bestKeys.insert(key, at: position)
        best.insert(make(doc, score: score), at: position)
        if best.count > k {
            best.removeLast()
            bestKeys.removeLast()
        }
        if best.count == k { worstKey = bestKeys[k - 1] }
    }

    /// ``Ranker/better(_:_:)``'s order among candidates that all match every group (so cover
    /// alike) as one integer, smaller being better: exact first, then the higher score, then the
    /// lower document number (never negative in a snapshot).
    @inline(__always) static func key(exact: Bool, score: Float, doc: Int32) -> UInt64 {
        UInt64(exact ? 0 : 1) << 63 | UInt64(RankKey.descending(score)) << 31 | UInt64(UInt32(bitPattern: doc))
    }
}
