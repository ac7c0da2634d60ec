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
/// with that segment's average lengths, and stored in the postings), the document frequency `df`
/// counts documents containing t in any field across all segments (deleted ones included, as
/// Lucene does), `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`, and the score of a set of query
/// terms is `Σ_t idf · tf̃ · (k1 + 1) / (tf̃ + k1)`.
enum TextIndex {
    static let k1: Float = 1.2
    static let b: Float = 0.75

    @inline(__always) static func saturate(_ tf: Float) -> Float { tf * (k1 + 1) / (tf + k1) }

    /// The inverse document frequency of a term across the snapshot (0 for unknown terms).
    static func idf(_ term: String, in snapshot: CatalogSnapshot) -> Float {
        var df = 0
        for segment in snapshot.segments {
            if let number = segment.term(term) {
                df += Int(segment.postingStart[number + 1] - segment.postingStart[number])
            }
        }
        guard df > 0 else { return 0 }
        let n = Float(snapshot.documentCount)
        return log(1 + (n - Float(df) + 0.5) / (Float(df) + 0.5))
    }

    /// Live documents containing every one of `terms`, ascending, with their BM25F scores.
    ///
    /// Per segment, the intersection starts from the shortest posting list and gallops through
    /// the longer ones; deleted documents are dropped as they come.
    ///
    /// - Parameter terms: Analyzed terms; repeats count once.
    static func matchAll(_ terms: [String], in snapshot: CatalogSnapshot) -> (docs: [Int32], scores: [Float]) {
        var unique = [String]()
        for t in terms where !unique.contains(t) { unique.append(t) }
        guard !unique.isEmpty else { return ([], []) }
        let idfs = unique.map { idf($0, in: snapshot) }
        if idfs.contains(0) { return ([], []) }
        var docs = [Int32]()
        var scores = [Float]()
        for (si, segment) in snapshot.segments.enumerated() {
            var lists = [
                (idf: Float, postings: (docs: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<Float>))
            ]()
            for (k, term) in unique.enumerated() {
                guard let number = segment.term(term) else {
                    lists = []
                    break
                }
                lists.append((idfs[k], segment.postings(number)))
            }
            guard !lists.isEmpty else { continue }
            lists.sort { $0.postings.docs.count < $1.postings.docs.count }
            intersect(lists, base: snapshot.bases[si], deleted: snapshot.deletes[si], docs: &docs, scores: &scores)
        }
        return (docs, scores)
    }

    private static func intersect(
        _ lists: [(idf: Float, postings: (docs: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<Float>))],
        base: Int32, deleted: DeleteSet, docs: inout [Int32], scores: inout [Float]
    ) {
        let first = lists[0]
        var cursors = [Int](repeating: 0, count: lists.count)
        let checkDeleted = deleted.count > 0
        outer: for (k, d) in first.postings.docs.enumerated() {
            if checkDeleted && deleted.contains(Int(d)) { continue }
            var score = saturate(first.postings.frequencies[k]) * first.idf
            for l in 1..<lists.count {
                let postings = lists[l].postings.docs
                // Gallop to the first posting ≥ d.
                var j = cursors[l]
                var step = 1
                while j + step < postings.count && postings[j + step] < d { step <<= 1 }
                var lo = j
                var hi = min(j + step, postings.count)
                while lo < hi {
                    let mid = (lo + hi) >> 1
                    if postings[mid] < d { lo = mid + 1 } else { hi = mid }
                }
                j = lo
                cursors[l] = j
                if j == postings.count { break outer }
                if postings[j] != d { continue outer }
                score += saturate(lists[l].postings.frequencies[j]) * lists[l].idf
            }
            docs.append(base + Int32(d))
            scores.append(score)
        }
    }

    /// Live documents whose title or a tag analyzes to exactly `terms`, ascending.
    static func exactMatches(_ terms: [String], in snapshot: CatalogSnapshot) -> [Int32] {
        var out = [Int32]()
        for (si, segment) in snapshot.segments.enumerated() {
            for d in segment.phraseDocs(terms) where !snapshot.deletes[si].contains(Int(d)) {
                out.append(snapshot.bases[si] + Int32(d))
            }
        }
        return out
    }
}
