/// One matching document with everything the ranking and the display need.
struct Candidate: Sendable {
    var doc: Int32
    /// Exact title/tag hits of a label rank before everything else.
    var exact: Bool
    /// The fused score.
    var score: Float
    var textScore: Float?
    var distance: Float?
    /// Indices of the text groups (labels, then free text) it matched.
    var matchedGroups: [Int]

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
    /// - Returns: Candidates, best first: exact hits, then score, then document number. `nil` when
    ///   there was nothing to match on (no groups, no prints), so the caller can browse instead.
    static func rank(
        _ s: CatalogSnapshot, groups: [TextGroup], mode: Mode, prints: [FeaturePrint], maxDistance: Float?
    ) -> [Candidate]? {
        let usable = groups.filter { !$0.terms.isEmpty }
        if usable.isEmpty && prints.isEmpty { return nil }
        var text = [Int32: Candidate]()
        if !usable.isEmpty {
            var perGroup = [[Int32: Float]]()
            for g in usable { perGroup.append(s.text.matchAll(g.terms)) }
            var docs: Set<Int32>
            switch mode {
            case .any: docs = perGroup.reduce(into: Set<Int32>()) { $0.formUnion($1.keys) }
            case .all:
                docs = Set(perGroup.min { $0.count < $1.count }!.keys)
                for m in perGroup { docs = docs.filter { m[$0] != nil } }
            }
            let exactSets = usable.map { Set(s.text.exactMatches($0.terms)) }
            for d in docs {
                var score: Float = 0
                var matched = [Int]()
                var exact = false
                for (i, m) in perGroup.enumerated() {
                    guard let v = m[d] else { continue }
                    score += v * usable[i].weight
                    matched.append(groups.firstIndex { $0.display == usable[i].display } ?? i)
                    if exactSets[i].contains(d) { exact = true }
                }
                text[d] = Candidate(
                    doc: d, exact: exact, score: score, textScore: score, distance: nil, matchedGroups: matched)
            }
        }
        var imageLists = [[(doc: Int32, distance: Float)]]()
        for p in prints {
            guard let index = s.vectors[p.model], index.dimension == p.values.count else { continue }
            let threshold =
                maxDistance ?? (p.model == FeaturePrinter.model ? FeaturePrinter.defaultMaxDistance : 0.25)
            imageLists.append(index.search(p.values, maxDistance: threshold))
        }
        var out: [Candidate]
        if imageLists.isEmpty {
            out = Array(text.values)
        } else {
            var fused = [Int32: Candidate]()
            let textOrder = sorted(Array(text.values))
            for (rank, c) in textOrder.enumerated() {
                var c = c
                c.score = 1 / (rrfK + Float(rank + 1))
                fused[c.doc] = c
            }
            for list in imageLists {
                for (rank, hit) in list.enumerated() {
                    let add = 1 / (rrfK + Float(rank + 1))
                    if var c = fused[hit.doc] {
                        c.score += add
                        c.distance = min(c.distance ?? .infinity, hit.distance)
                        fused[hit.doc] = c
                    } else {
                        fused[hit.doc] = Candidate(
                            doc: hit.doc, exact: false, score: add, textScore: nil, distance: hit.distance,
                            matchedGroups: [])
                    }
                }
            }
            out = Array(fused.values)
        }
        return sorted(out)
    }

    static func sorted(_ c: [Candidate]) -> [Candidate] {
        c.sorted {
            if $0.exact != $1.exact { return $0.exact }
            if $0.score != $1.score { return $0.score > $1.score }
            return $0.doc < $1.doc
        }
    }
}
