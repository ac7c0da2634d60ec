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

/// An in-memory inverted index ranked with BM25F.
///
/// For a term t and a document d, the field-normalised term frequency is
/// `tf̃ = Σ_f w_f · tf_f / (1 − b + b · len_f / avglen_f)`, the document frequency `df` counts
/// documents containing t in any field, `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`, and the
/// score of a set of query terms is `Σ_t idf · tf̃ · (k1 + 1) / (tf̃ + k1)`. `tf̃` is computed at
/// build time and stored in the postings, so a query only adds.
struct TextIndex: Sendable {
    static let k1: Float = 1.2
    static let b: Float = 0.75

    struct Posting: Sendable {
        var doc: Int32
        var tf: Float
    }

    private(set) var termIDs: [String: Int32] = [:]
    private(set) var postings: [[Posting]] = []
    private(set) var documentCount = 0
    /// Analyzed title and tag phrases → documents, for exact label hits.
    private(set) var exact: [String: [Int32]] = [:]
    private(set) var averageLength: [Float] = []

    /// An entity's analyzed fields and exact phrases: computed once per entity version and reused
    /// by later snapshots while the entity and the synonyms are unchanged.
    struct AnalyzedDoc: Sendable {
        /// Terms per ``TextField``, in field order.
        var fields: [[String]]
        /// The analyzed title and tags, each joined by spaces.
        var phrases: [String]

        init(_ e: Entity, analyzer: Analyzer) {
            let title = analyzer.terms(e.title)
            let tags = e.tags.map(analyzer.terms)
            fields = [title, tags.flatMap { $0 }, analyzer.terms(e.subtitle), analyzer.terms(e.category)]
            var phrases = [title.joined(separator: " ")]
            for t in tags {
                let p = t.joined(separator: " ")
                if !phrases.contains(p) { phrases.append(p) }
            }
            self.phrases = phrases.filter { !$0.isEmpty }
        }
    }

    /// Indexes analyzed documents in order; document numbers are array positions.
    init(docs: [AnalyzedDoc]) {
        documentCount = docs.count
        let fields = TextField.allCases
        var totals = [Double](repeating: 0, count: fields.count)
        for d in docs { for f in fields { totals[f.rawValue] += Double(d.fields[f.rawValue].count) } }
        averageLength = totals.map { docs.isEmpty ? 0 : Float($0 / Double(docs.count)) }
        var local = [(id: Int32, tf: Float)]()
        for (doc, d) in docs.enumerated() {
            local.removeAll(keepingCapacity: true)
            for f in fields {
                let terms = d.fields[f.rawValue]
                guard !terms.isEmpty else { continue }
                let norm = 1 - Self.b + Self.b * Float(terms.count) / max(averageLength[f.rawValue], 1e-9)
                let add = f.weight / norm
                for t in terms {
                    let id = termID(t)
                    // Few terms per document: a linear merge beats hashing.
                    if let k = local.firstIndex(where: { $0.id == id }) {
                        local[k].tf += add
                    } else {
                        local.append((id, add))
                    }
                }
            }
            for (id, value) in local { postings[Int(id)].append(Posting(doc: Int32(doc), tf: value)) }
            for p in d.phrases { exact[p, default: []].append(Int32(doc)) }
        }
    }

    private mutating func termID(_ term: String) -> Int32 {
        if let id = termIDs[term] { return id }
        let id = Int32(postings.count)
        termIDs[term] = id
        postings.append([])
        return id
    }

    /// The inverse document frequency of a term (0 for unknown terms).
    func idf(_ term: String) -> Float {
        guard let id = termIDs[term] else { return 0 }
        let df = Float(postings[Int(id)].count)
        let n = Float(documentCount)
        return log(1 + (n - df + 0.5) / (df + 0.5))
    }

    /// Documents containing every one of `terms`, with their BM25F scores.
    ///
    /// - Parameter terms: Analyzed terms; repeats count once.
    /// - Returns: Document → score; empty when a term is unknown or `terms` is empty.
    func matchAll(_ terms: [String]) -> [Int32: Float] {
        let m = matchSorted(terms)
        return Dictionary(uniqueKeysWithValues: zip(m.docs, m.scores))
    }

    /// Documents containing every one of `terms`, in document order, with their BM25F scores.
    ///
    /// Postings are stored in document order, so the intersection is a merge that starts from the
    /// shortest list and gallops through the longer ones.
    func matchSorted(_ terms: [String]) -> (docs: [Int32], scores: [Float]) {
        var seen = Set<String>()
        var lists = [(idf: Float, postings: [Posting])]()
        for t in terms where seen.insert(t).inserted {
            guard let id = termIDs[t] else { return ([], []) }
            lists.append((idf(t), postings[Int(id)]))
        }
        guard !lists.isEmpty else { return ([], []) }
        lists.sort { $0.postings.count < $1.postings.count }
        var docs = [Int32]()
        var scores = [Float]()
        docs.reserveCapacity(lists[0].postings.count)
        scores.reserveCapacity(lists[0].postings.count)
        for p in lists[0].postings {
            docs.append(p.doc)
            scores.append(Self.saturate(p.tf) * lists[0].idf)
        }
        for list in lists.dropFirst() {
            var keptDocs = [Int32]()
            var keptScores = [Float]()
            keptDocs.reserveCapacity(docs.count)
            keptScores.reserveCapacity(docs.count)
            list.postings.withUnsafeBufferPointer { postings in
                var j = 0
                for (k, d) in docs.enumerated() {
                    // Gallop to the first posting ≥ d.
                    var step = 1
                    while j + step < postings.count && postings[j + step].doc < d { step <<= 1 }
                    var lo = j
                    var hi = min(j + step, postings.count)
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        if postings[mid].doc < d { lo = mid + 1 } else { hi = mid }
                    }
                    j = lo
                    if j == postings.count { break }
                    if postings[j].doc == d {
                        keptDocs.append(d)
                        keptScores.append(scores[k] + Self.saturate(postings[j].tf) * list.idf)
                    }
                }
            }
            docs = keptDocs
            scores = keptScores
            if docs.isEmpty { break }
        }
        return (docs, scores)
    }

    /// Documents whose title or a tag analyzes to exactly `terms`.
    func exactMatches(_ terms: [String]) -> [Int32] {
        exact[terms.joined(separator: " ")] ?? []
    }

    @inline(__always) static func saturate(_ tf: Float) -> Float { tf * (k1 + 1) / (tf + k1) }
}
