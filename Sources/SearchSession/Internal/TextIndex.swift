internal import CVectorKernels
internal import Foundation

/// The fields the text index searches, with their BM25F weights.
enum TextField: Int, CaseIterable, Sendable {
    case title, tags, subtitle, category

    /// Title outweighs tags, tags outweigh the subtitle, the category path counts least.
    var weight: Float {
        switch self {
        case .title: 3
        case .tags: 2
        case .subtitle: 1
        case .category: 0.5
        }
    }
}

/// Text matching over a snapshot's segments, ranked with BM25F.
///
/// For a term t and a document d, the field-normalised term frequency is
/// `tf̃ = Σ_f w_f · tf_f / (1 − b + b · len_f / avglen_f)` (computed when its segment is built,
/// with that segment's average lengths, and stored in the postings saturated, as
/// `tf̃ · (k1 + 1) / (tf̃ + k1)`), the document frequency `df` counts documents containing t in
/// any field across all segments (deleted ones included, as Lucene does),
/// `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`, and the score of a set of query terms is
/// `Σ_t idf · tf̃ · (k1 + 1) / (tf̃ + k1)`.
enum TextIndex {
    static let k1: Float = 1.2
    static let b: Float = 0.75

    @inline(__always) static func saturate(_ tf: Float) -> Float { tf * (k1 + 1) / (tf + k1) }

    /// The inverse document frequency of a term across the snapshot (0 for unknown terms).
    static func idf(_ term: String, in snapshot: CatalogSnapshot) -> Float {
        idf(documentFrequency: documentFrequency(term, in: snapshot), in: snapshot)
    }

    /// The inverse document frequency of a term that `df` documents of the snapshot have.
    static func idf(documentFrequency df: Int, in snapshot: CatalogSnapshot) -> Float {
        guard df > 0 else { return 0 }
        let n = Float(snapshot.documentCount)
        return log(1 + (n - Float(df) + 0.5) / (Float(df) + 0.5))
    }

    /// How many documents of the snapshot's segments have `term` (deleted ones included).
    static func documentFrequency(_ term: String, in snapshot: CatalogSnapshot) -> Int {
        documentFrequency(TermKey(term), in: snapshot)
    }

    /// How many documents of the snapshot's segments have the term of `key` (deleted ones included).
    static func documentFrequency(_ key: TermKey, in snapshot: CatalogSnapshot) -> Int {
        snapshot.terms(key).documentFrequency
    }

    /// The live documents that have `term`, ascending.
    static func liveDocs(_ term: String, in snapshot: CatalogSnapshot) -> [Int32] {
        let numbers = snapshot.terms(TermKey(term)).numbers
        let reads = PostingReads()
        defer { reads.release() }
        return live(in: snapshot) { si, segment, keep in
            guard numbers[si] >= 0 else { return }
            segment.postings(Int(numbers[si]), reads: reads).docs.forEach { doc, _ in keep(doc) }
        }
    }

    /// The live documents that have `term` and are not among `hits` (ascending, and documents
    /// with `term`, like every hit of a search that covers it): one pass over its postings.
    ///
    /// Whether a posting is a hit varies from one to the next like a coin toss, so the pass
    /// decides without branching: each posting is written, and only one to keep moves the end.
    static func liveDocs(_ term: String, in snapshot: CatalogSnapshot, except hits: [Int32]) -> [Int32] {
        let terms = snapshot.terms(TermKey(term))
        let postings = terms.documentFrequency
        let reads = PostingReads()
        defer { reads.release() }
        return hits.withUnsafeBufferPointer { hits in
            [Int32](unsafeUninitializedCapacity: postings) { out, written in
                var kept = 0
                var next = 0
                for (si, segment) in snapshot.segments.enumerated() {
                    let number = Int(terms.numbers[si])
                    guard number >= 0 else { continue }
                    let deleted = snapshot.deletes[si]
                    let checkDeleted = deleted.count > 0
                    let base = snapshot.bases[si]
                    let docs = segment.postings(number, reads: reads).docs
                    if case .bits(let probe) = docs {
                        kept += liveBits(
                            probe, of: base..<(base + Int32(segment.count)), except: hits, from: &next,
                            deleted: checkDeleted ? deleted : nil, into: out.baseAddress! + kept)
                        continue
                    }
                    docs.forEach { local, _ in
                        let doc = base + Int32(local)
                        // Passes hits that are not this term's (never, when they all have it).
                        while next < hits.count && hits[next] < doc { next += 1 }
                        let isHit = next < hits.count && hits[next] == doc
                        next += isHit ? 1 : 0
                        out[kept] = doc
                        let isDeleted = checkDeleted && deleted.contains(Int(local))
                        kept += 1 &- ((isHit ? 1 : 0) | (isDeleted ? 1 : 0))
                    }
                }
                written = kept
            }
        }
    }

    /// ``liveDocs(_:in:except:)`` for a segment (its documents `documents`, in snapshot numbers)
    /// that keeps the term as bits: the hits in the segment (from `next` on, which passes them)
    /// cleared from a copy of its words, and the bits left written out, a word at a time instead
    /// of a merge step per posting. Returns how many.
    private static func liveBits(
        _ probe: DenseProbe, of documents: Range<Int32>, except hits: UnsafeBufferPointer<Int32>,
        from next: inout Int, deleted: DeleteSet?, into out: UnsafeMutablePointer<Int32>
    ) -> Int {
        let words = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: probe.wordCount)
        defer { words.deallocate() }
        _ = words.initialize(from: UnsafeBufferPointer(start: probe.words, count: probe.wordCount))
        let base = documents.lowerBound
        // Hits past the segment's last document belong to the next segments, even where its last
        // word has room for them.
        while next < hits.count && hits[next] < documents.upperBound {
            let local = Int(hits[next]) - Int(base)
            if local >= 0 { words[local >> 6] &= ~(1 &<< UInt64(local & 63)) }
            next += 1
        }
        var written = 0
        for index in 0..<probe.wordCount {
            var word = words[index]
            while word != 0 {
                let local = index << 6 | word.trailingZeroBitCount
                word &= word &- 1
                if let deleted, deleted.contains(local) { continue }
                out[written] = base + Int32(local)
                written += 1
            }
        }
        return written
    }

    /// The live documents that `visit` hands to `keep` for each segment (its own document
    /// numbers, ascending) as snapshot document numbers, ascending.
    private static func live(
        in snapshot: CatalogSnapshot,
        _ visit: (_ position: Int, Segment, _ keep: (UInt32) -> Void) -> Void
    ) -> [Int32] {
        var out = [Int32]()
        for (si, segment) in snapshot.segments.enumerated() {
            let deleted = snapshot.deletes[si]
            let base = snapshot.bases[si]
            visit(si, segment) { doc in
                if deleted.count == 0 || !deleted.contains(Int(doc)) { out.append(base + Int32(doc)) }
            }
        }
        return out
    }

    /// Live documents containing every one of `terms`, ascending, with their BM25F scores.
    ///
    /// - Parameter terms: Analyzed terms; repeats count once.
    static func matchAll(_ terms: [String], in snapshot: CatalogSnapshot) -> (docs: [Int32], scores: [Float]) {
        matchEvery([(terms, 1)], in: snapshot)
    }

    /// Live documents containing every term of every group, ascending, with the sum over groups
    /// of each group's BM25F score times its weight.
    ///
    /// Per segment, the intersection of all the groups' terms starts from the shortest posting
    /// list and gallops through the longer ones, so several common labels that must all match
    /// cost what their rarest term costs, not each label's own matches; deleted documents are
    /// dropped as they come. A group's terms are summed shortest list first, then the groups in
    /// order, so a score is the same to the last bit as group-by-group matching would make it.
    ///
    /// - Parameters:
    ///   - groups: Analyzed terms (repeats within a group count once) and weights.
    ///   - range: The snapshot document numbers to match in (scores do not depend on it).
    static func matchEvery(
        _ groups: [(terms: [String], weight: Float)], in snapshot: CatalogSnapshot,
        range: Range<Int32> = Int32.min..<Int32.max
    ) -> (docs: [Int32], scores: [Float]) {
        var lists = DocsAndScores()
        matchEvery(groups, in: snapshot, range: range, into: &lists)
        return (lists.docs, lists.scores)
    }

    /// ``matchEvery(_:in:range:)``, each match handed to `sink` as it is found (ascending), so a
    /// caller that builds its own records makes them in the same pass.
    static func matchEvery<Sink: MatchSink>(
        _ groups: [(terms: [String], weight: Float)], in snapshot: CatalogSnapshot, range: Range<Int32>,
        into sink: inout Sink
    ) {
        var terms = [String]()
        var groupTerms = [[Int]]()
        for group in groups {
            var positions = [Int]()
            for term in group.terms {
                let position = terms.firstIndex(of: term) ?? terms.count
                if position == terms.count { terms.append(term) }
                if !positions.contains(position) { positions.append(position) }
            }
            groupTerms.append(positions)
        }
        guard !terms.isEmpty, !groupTerms.contains(where: \.isEmpty) else { return }
        let numbered = terms.map { snapshot.terms(TermKey($0)) }
        let idfs = numbered.map { idf(documentFrequency: $0.documentFrequency, in: snapshot) }
        let segmentNumbers = numbered.map(\.numbers)
        if idfs.contains(0) { return }
        // The per-document loop reads only these raw buffers, so it retains and releases nothing.
        let termCount = terms.count
        /// Each list's documents, decoded, when it is gaps; empty when it is bits (then in `probes`).
        let listDocs = filledBuffer(termCount, UnsafeBufferPointer<UInt32>(start: nil, count: 0))
        /// Where each term's lists are decoded, grown to the longest so far.
        let decoded = filledBuffer(termCount, UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0))
        let listCounts = filledBuffer(termCount, 0)
        let listFrequencies = filledBuffer(termCount, PostingFrequencies.empty)
        let termIDF = filledBuffer(termCount, Float(0))
        let cursors = filledBuffer(termCount, 0)
        let contributions = filledBuffer(termCount, Float(0))
        /// The intersection's order: shortest list first.
        let order = filledBuffer(termCount, 0)
        /// Each group's terms in summation order (shortest list first), group after group.
        let sumTerms = filledBuffer(groupTerms.reduce(0) { $0 + $1.count }, 0)
        let sumEnds = filledBuffer(groups.count, 0)
        let weights = filledBuffer(groups.count, Float(0))
        /// The lists of common terms, which are bits (see ``DenseBits``): probed, not searched.
        let probes = filledBuffer(termCount, DenseProbe?.none)
        /// What `listFrequencies` (and the gaps decoded from) point into, for a large mapped segment.
        let reads = PostingReads()
        defer {
            reads.release()
            for buffer in decoded { buffer.baseAddress?.deallocate() }
            decoded.baseAddress?.deallocate()
            probes.baseAddress?.deallocate()
            for buffer in [cursors, order, sumTerms, sumEnds, listCounts] { buffer.baseAddress?.deallocate() }
            for buffer in [termIDF, contributions, weights] { buffer.baseAddress?.deallocate() }
            listDocs.baseAddress?.deallocate()
            listFrequencies.baseAddress?.deallocate()
        }
        for (position, idf) in idfs.enumerated() { termIDF[position] = idf }
        for (group, weight) in groups.map(\.weight).enumerated() { weights[group] = weight }
        let scoring = GroupedScore(
            frequencies: listFrequencies, idfs: termIDF, contributions: contributions, sumTerms: sumTerms,
            sumEnds: sumEnds, weights: weights)
        for (si, segment) in snapshot.segments.enumerated() {
            let base = snapshot.bases[si]
            guard range.lowerBound < base + Int32(segment.count), range.upperBound > base else { continue }
            var found = 0
            for numbers in segmentNumbers {
                let number = Int(numbers[si])
                guard number >= 0 else { break }
                let list = segment.postings(number, reads: reads)
                switch list.docs {
                case .gaps(let gaps):
                    if decoded[found].count < max(gaps.count, 1) {
                        decoded[found].baseAddress?.deallocate()
                        decoded[found] = .allocate(capacity: max(gaps.count, 1))
                    }
                    let written = gaps.decode(into: decoded[found].baseAddress!)
                    listDocs[found] = UnsafeBufferPointer(rebasing: decoded[found][0..<written])
                    probes[found] = nil
                case .bits(let probe):
                    listDocs[found] = UnsafeBufferPointer(start: nil, count: 0)
                    probes[found] = probe
                }
                listCounts[found] = list.frequencies.count
                listFrequencies[found] = list.frequencies
                found += 1
            }
            guard found == termCount else { continue }
            for (rank, term) in terms.indices.sorted(by: { listCounts[$0] < listCounts[$1] }).enumerated() {
                order[rank] = term
            }
            var end = 0
            for (group, positions) in groupTerms.enumerated() {
                for term in positions.sorted(by: { listCounts[$0] < listCounts[$1] }) {
                    sumTerms[end] = term
                    end += 1
                }
                sumEnds[group] = end
            }
            let deleted = snapshot.deletes[si]
            let checkDeleted = deleted.count > 0
            for position in 0..<termCount { cursors[position] = 0 }
            let driver = order[0]
            if probes[driver] != nil {
                // The shortest list is bits, so every list is (a list as long qualifies too).
                let low = max(Int(range.lowerBound) - Int(base), 0)
                let high = min(Int(range.upperBound) - Int(base), segment.count)
                matchBits(
                    low..<max(low, high), probes: probes, scoring: scoring, deleted: checkDeleted ? deleted : nil,
                    base: base, into: &sink)
                continue
            }
            let driverDocs = listDocs[driver]
            let driverFrequencies = listFrequencies[driver]
            let driverIDF = termIDF[driver]
            /// The first driver posting at or past snapshot document `doc`.
            func driverPosition(_ doc: Int32) -> Int {
                if doc <= base { return 0 }
                let local = UInt32(clamping: Int64(doc) - Int64(base))
                return driverDocs.partitionPoint { $0 >= local }
            }
            let drivers = driverPosition(range.lowerBound)..<driverPosition(range.upperBound)
            // At most every driver posting matches: room for that up front, not regrown as it fills.
            sink.reserve(more: drivers.count)
            if termCount == 1 && groups.count == 1 {
                // One term in one group (a single-word label, the common case): every live posting
                // matches, and its score is the group's, as the general loop sums it (0 + x is x).
                let weight = weights[0]
                for k in drivers {
                    let d = driverDocs[k]
                    if checkDeleted && deleted.contains(Int(d)) { continue }
                    sink.add(base + Int32(d), score: driverFrequencies[k] * driverIDF * weight)
                }
                continue
            }
            if termCount == 2, let shape = TwoTermScore(groups: groups.count, sumEnds: sumEnds) {
                matchTwo(
                    drivers, driverDocs: driverDocs, driverFrequencies: driverFrequencies, driverIDF: driverIDF,
                    other: (listDocs[order[1]], listFrequencies[order[1]], termIDF[order[1]]),
                    otherProbe: probes[order[1]],
                    driverSumsFirst: sumTerms[0] == driver, shape: shape, weights: weights,
                    deleted: checkDeleted ? deleted : nil, base: base, into: &sink)
                continue
            }
            outer: for k in drivers {
                let d = driverDocs[k]
                if checkDeleted && deleted.contains(Int(d)) { continue }
                contributions[driver] = driverFrequencies[k] * driverIDF
                for rank in 1..<termCount {
                    let term = order[rank]
                    if let probe = probes[term] {
                        let (has, position) = probe.find(d)
                        if !has { continue outer }
                        contributions[term] = listFrequencies[term][position] * termIDF[term]
                        continue
                    }
                    let list = listDocs[term]
                    let low = firstPosting(atLeast: d, in: list, from: cursors[term])
                    cursors[term] = low
                    if low == list.count { break outer }
                    if list[low] != d { continue outer }
                    contributions[term] = listFrequencies[term][low] * termIDF[term]
                }
                sink.add(base + Int32(d), score: scoring.score())
            }
        }
    }

    /// How a match's score is summed from its terms' contributions: each group's terms in
    /// ``sumTerms`` order, times the group's weight, groups in order. One place, so every loop
    /// sums a match to the same bit.
    struct GroupedScore {
        let frequencies: UnsafeMutableBufferPointer<PostingFrequencies>
        let idfs: UnsafeMutableBufferPointer<Float>
        /// Each term's contribution to the match at hand (its frequency there times its idf).
        let contributions: UnsafeMutableBufferPointer<Float>
        let sumTerms: UnsafeMutableBufferPointer<Int>
        let sumEnds: UnsafeMutableBufferPointer<Int>
        let weights: UnsafeMutableBufferPointer<Float>

        @inline(__always) func score() -> Float {
            var score: Float = 0
            var start = 0
            for group in 0..<sumEnds.count {
                let end = sumEnds[group]
                var groupScore = contributions[sumTerms[start]]
                for next in (start + 1)..<end { groupScore += contributions[sumTerms[next]] }
                score += groupScore * weights[group]
                start = end
            }
            return score
        }
    }

    /// The intersection in one segment when every list is bits: 64 documents at a time, a word
    /// of each list ANDed, and each document left scored as the general loop scores it (its
    /// position in each list a population count, for its frequency).
    ///
    /// Several terms are matched by `cvk_match_dense` (C, for the CPU's POPCNT: a population
    /// count per term and match was most of the heaviest captures' time), a chunk of the delete
    /// set's documents at a time, its deleted documents masked out a word at a time.
    ///
    /// - Parameter locals: The segment's documents to match in.
    private static func matchBits<Sink: MatchSink>(
        _ locals: Range<Int>, probes: UnsafeMutableBufferPointer<DenseProbe?>, scoring: GroupedScore,
        deleted: DeleteSet?, base: Int32, into sink: inout Sink
    ) {
        guard !locals.isEmpty else { return }
        let termCount = probes.count
        let lists = UnsafeMutableBufferPointer<DenseProbe>.allocate(capacity: termCount)
        defer { lists.deallocate() }
        for term in 0..<termCount { lists[term] = probes[term]! }
        let shortest = lists.min { $0.count < $1.count }!
        sink.reserve(
            more: shortest.position(atLeast: locals.upperBound) - shortest.position(atLeast: locals.lowerBound))
        if termCount == 1 && scoring.sumEnds.count == 1 {
            // One term in one group (a single common label): every live document of the list
            // matches, positions counted as they come, scored as the general loop sums it.
            let list = lists[0]
            let factor = scoring.idfs[0]
            let weight = scoring.weights[0]
            let frequencies = scoring.frequencies[0]
            var position = list.position(atLeast: locals.lowerBound)
            for index in (locals.lowerBound >> 6)...((locals.upperBound - 1) >> 6) {
                var word = DenseBits.masked(list.words[index], at: index, within: locals)
                while word != 0 {
                    let local = index << 6 | word.trailingZeroBitCount
                    word &= word &- 1
                    defer { position &+= 1 }
                    if let deleted, deleted.contains(local) { continue }
                    sink.add(base + Int32(local), score: frequencies[position] * factor * weight)
                }
            }
            return
        }
        let words = UnsafeMutableBufferPointer<UnsafePointer<UInt64>?>.allocate(capacity: termCount)
        let ranks = UnsafeMutableBufferPointer<UnsafePointer<UInt32>?>.allocate(capacity: termCount)
        let codes = UnsafeMutableBufferPointer<UnsafePointer<UInt8>?>.allocate(capacity: termCount)
        let values = UnsafeMutableBufferPointer<UnsafePointer<Float>?>.allocate(capacity: termCount)
        let valueMasks = UnsafeMutableBufferPointer<Int>.allocate(capacity: termCount)
        let room = min(DeleteSet.documentsPerChunk, locals.count)
        let found = UnsafeMutableBufferPointer<Int32>.allocate(capacity: room)
        let scores = UnsafeMutableBufferPointer<Float>.allocate(capacity: room)
        defer {
            words.deallocate()
            ranks.deallocate()
            codes.deallocate()
            values.deallocate()
            valueMasks.deallocate()
            found.deallocate()
            scores.deallocate()
        }
        for term in 0..<termCount {
            words[term] = lists[term].words
            ranks[term] = lists[term].ranks
            codes[term] = scoring.frequencies[term].codes.baseAddress
            values[term] = scoring.frequencies[term].values.baseAddress
            valueMasks[term] = scoring.frequencies[term].values.count &- 1
        }
        var match = cvk_dense_match(
            term_count: termCount, words: words.baseAddress, ranks: ranks.baseAddress, codes: codes.baseAddress,
            values: values.baseAddress, value_masks: valueMasks.baseAddress, idfs: scoring.idfs.baseAddress,
            group_count: scoring.sumEnds.count, sum_terms: scoring.sumTerms.baseAddress,
            sum_ends: scoring.sumEnds.baseAddress, weights: scoring.weights.baseAddress,
            contributions: scoring.contributions.baseAddress)
        // A delete set's chunk at a time, so that its words are at hand as one array.
        var low = locals.lowerBound
        while low < locals.upperBound {
            let chunkIndex = low / DeleteSet.documentsPerChunk
            let chunkStart = chunkIndex * DeleteSet.documentsPerChunk
            let high = min(locals.upperBound, chunkStart + DeleteSet.documentsPerChunk, low + room)
            let count =
                if let deleted {
                    deleted.withChunkWords(chunkIndex) { deletedWords in
                        cvk_match_dense(
                            &match, low, high, deletedWords, chunkStart, found.baseAddress, scores.baseAddress)
                    }
                } else {
                    cvk_match_dense(&match, low, high, nil, 0, found.baseAddress, scores.baseAddress)
                }
            for hit in 0..<count { sink.add(base + found[hit], score: scores[hit]) }
            low = high
        }
    }

    /// The first posting of `list` at or past `j` that is ≥ `doc` (or the list's end): the next
    /// four looked at first (a common term's next posting is near), counted without a branch
    /// (where a walk stops is a coin toss), then a gallop when all four are behind.
    @inline(__always) static func firstPosting(
        atLeast doc: UInt32, in list: UnsafeBufferPointer<UInt32>, from j: Int
    ) -> Int {
        var low = j
        let near = min(j + 4, list.count)
        if near == j + 4 {
            // Ascending, so the postings before doc are a prefix: counting them is finding it.
            low +=
                (list[j] < doc ? 1 : 0) + (list[j + 1] < doc ? 1 : 0) + (list[j + 2] < doc ? 1 : 0)
                + (list[j + 3] < doc ? 1 : 0)
        } else {
            while low < near && list[low] < doc { low += 1 }
        }
        if low == near && low < list.count && list[low] < doc {
            var step = 1
            while low + step < list.count && list[low + step] < doc { step <<= 1 }
            var high = min(low + step, list.count)
            while low < high {
                let mid = (low + high) >> 1
                if list[mid] < doc { low = mid + 1 } else { high = mid }
            }
        }
        return low
    }

    /// How the general loop sums two terms' contributions: in one group, or one term per group.
    enum TwoTermScore {
        case oneGroup, twoGroups

        init?(groups: Int, sumEnds: UnsafeMutableBufferPointer<Int>) {
            if groups == 1 && sumEnds[0] == 2 {
                self = .oneGroup
            } else if groups == 2 && sumEnds[0] == 1 && sumEnds[1] == 2 {
                self = .twoGroups
            } else {
                return nil
            }
        }
    }

    /// The intersection of two terms' postings in one segment (two common labels, the heaviest
    /// captures), in two passes: the driver postings the other list has too are found without a
    /// branch on whether it has them (about a coin toss for common labels, mispredicted at every
    /// change), then scored and handed to `sink` in order. Scores are summed as the general loop
    /// sums them, to the bit.
    ///
    /// - Parameter driverSumsFirst: Whether the driver's contribution comes first in the sum.
    private static func matchTwo<Sink: MatchSink>(
        _ drivers: Range<Int>, driverDocs: UnsafeBufferPointer<UInt32>, driverFrequencies: PostingFrequencies,
        driverIDF: Float,
        other: (docs: UnsafeBufferPointer<UInt32>, frequencies: PostingFrequencies, idf: Float),
        otherProbe: DenseProbe?, driverSumsFirst: Bool, shape: TwoTermScore, weights: UnsafeMutableBufferPointer<Float>,
        deleted: DeleteSet?,
        base: Int32, into sink: inout Sink
    ) {
        guard !drivers.isEmpty, otherProbe != nil || !other.docs.isEmpty else { return }
        // Per match: its driver posting and its posting in the other list.
        let driverAt = UnsafeMutableBufferPointer<Int32>.allocate(capacity: drivers.count)
        let otherAt = UnsafeMutableBufferPointer<Int32>.allocate(capacity: drivers.count)
        defer {
            driverAt.baseAddress?.deallocate()
            otherAt.baseAddress?.deallocate()
        }
        var matches = 0
        if let probe = otherProbe {
            for k in drivers {
                let (has, position) = probe.find(driverDocs[k])
                driverAt[matches] = Int32(truncatingIfNeeded: k)
                otherAt[matches] = Int32(truncatingIfNeeded: position)
                matches &+= has ? 1 : 0
            }
        } else {
            var j = 0
            for k in drivers {
                let d = driverDocs[k]
                j = firstPosting(atLeast: d, in: other.docs, from: j)
                if j == other.docs.count { break }
                driverAt[matches] = Int32(truncatingIfNeeded: k)
                otherAt[matches] = Int32(truncatingIfNeeded: j)
                // 1 when the other list has d, else 0, in arithmetic (a comparison became a branch).
                matches &+= 1 &- ((Int(other.docs[j] ^ d) &+ 0xFFFF_FFFF) >> 32)
            }
        }
        let (firstWeight, secondWeight) = (weights[0], shape == .twoGroups ? weights[1] : 0)
        for match in 0..<matches {
            let k = Int(driverAt[match])
            let d = driverDocs[k]
            if let deleted, deleted.contains(Int(d)) { continue }
            let driverContribution = driverFrequencies[k] * driverIDF
            let otherContribution = other.frequencies[Int(otherAt[match])] * other.idf
            let (first, second) =
                driverSumsFirst
                ? (driverContribution, otherContribution) : (otherContribution, driverContribution)
            let score =
                switch shape {
                case .oneGroup: (first + second) * firstWeight
                case .twoGroups: first * firstWeight + second * secondWeight
                }
            sink.add(base + Int32(d), score: score)
        }
    }

    /// Live documents whose title or a tag analyzes to exactly `terms`, ascending.
    static func exactMatches(_ terms: [String], in snapshot: CatalogSnapshot) -> [Int32] {
        let phrases = snapshot.phrases(Segment.hash(phrase: terms))
        let reads = PostingReads()
        defer { reads.release() }
        return live(in: snapshot) { si, segment, keep in
            guard let phrase = phrases.first(where: { $0.segment == si }) else { return }
            segment.phraseDocs(phrase.phrase, reads: reads).forEach { doc, _ in keep(doc) }
        }
    }
}

/// Where ``TextIndex/matchEvery(_:in:range:into:)`` puts its matches, in ascending document order.
protocol MatchSink {
    /// Room for `count` more matches (at most that many follow before the next call).
    mutating func reserve(more count: Int)
    mutating func add(_ doc: Int32, score: Float)
}

/// Matches as two parallel arrays.
struct DocsAndScores: MatchSink {
    var docs = [Int32]()
    var scores = [Float]()

    mutating func reserve(more count: Int) {
        docs.reserveCapacity(docs.count + count)
        scores.reserveCapacity(scores.count + count)
    }

    mutating func add(_ doc: Int32, score: Float) {
        docs.append(doc)
        scores.append(score)
    }
}
