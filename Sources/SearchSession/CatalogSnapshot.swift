/// One immutable version of the catalog with its indexes.
///
/// Updates never change a snapshot; they build a new one with a higher ``version``. Pages of a
/// search pin the snapshot they started on, so they stay consistent while the catalog changes.
public final class CatalogSnapshot: Sendable {
    /// The catalog version, increasing with every update.
    public let version: UInt64
    /// The entities, in a stable order (document numbers are positions here).
    public let entities: [Entity]
    /// The synonym groups the analyzer was built from.
    public let synonyms: [[String]]
    let analyzer: Analyzer
    let text: TextIndex
    let vectors: [String: VectorIndex]
    let positions: [EntityRef: Int32]
    /// Numeric attribute facets: attribute → bucket layout over this snapshot's values.
    let buckets: [String: NumberBuckets]
    /// Attributes that have at least one string value (faceted by value, not by bucket).
    let stringAttributes: Set<String>

    /// Each entity's category and its ancestors (`Music`, `Music/Rock`), for category facets.
    let categoryPrefixes: [[String]]
    /// Facet values numbered per document, for counting facets without hashing.
    let facetIndex: FacetIndex
    /// Each entity's analyzed text, reused by the next snapshot for unchanged entities.
    let analyzed: [TextIndex.AnalyzedDoc]
    /// Each entity's deep link for results, computed on first use (see ``EntityLinker``).
    let linkCache = LinkCache()
    /// Document `d`'s related entities that are in the snapshot, as document numbers, in order:
    /// `relatedDocs[relatedStart[d]..<relatedStart[d + 1]]`. The sheet follows them on every
    /// query; numbering them once spares it hashing references.
    let relatedStart: [Int32]
    let relatedDocs: [Int32]

    /// Builds a snapshot; with `previous` (and the same synonyms), unchanged entities reuse their
    /// analysis instead of running the analyzer again.
    init(version: UInt64, entities: [Entity], synonyms: [[String]], previous: CatalogSnapshot? = nil) {
        self.version = version
        self.entities = entities
        self.synonyms = synonyms
        let reuse = previous.flatMap { $0.synonyms == synonyms ? $0 : nil }
        let analyzer = reuse?.analyzer ?? Analyzer(synonyms: synonyms)
        self.analyzer = analyzer
        analyzed = entities.map { e in
            if let old = reuse, let i = old.positions[e.ref], old.entities[Int(i)] == e { return old.analyzed[Int(i)] }
            return TextIndex.AnalyzedDoc(e, analyzer: analyzer)
        }
        text = TextIndex(docs: analyzed)
        categoryPrefixes = entities.map { e in
            var out = [String]()
            var prefix = ""
            for part in e.category.split(separator: "/") {
                prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
                out.append(prefix)
            }
            return out
        }
        // When the entities already in `previous` kept their positions and prints (replacements
        // without print changes, appends), its vector rows are shared instead of rebuilt: the
        // largest part of a snapshot is not copied per update. Array equality is O(1) for shared
        // storage, so the check is cheap for untouched entities.
        let keptPrints =
            previous.map { old in
                old.entities.count <= entities.count
                    && old.entities.indices.allSatisfy {
                        old.entities[$0].ref == entities[$0].ref && old.entities[$0].prints == entities[$0].prints
                    }
            } ?? false
        var vectors = keptPrints ? previous!.vectors : [String: VectorIndex]()
        let firstNewDoc = keptPrints ? previous!.entities.count : 0
        var positions = [EntityRef: Int32](minimumCapacity: entities.count)
        var ranges = [String: (min: Double, max: Double, integral: Bool)]()
        var strings = Set<String>()
        for (doc, e) in entities.enumerated() {
            positions[e.ref] = Int32(doc)
            for p in e.prints where doc >= firstNewDoc {
                if vectors[p.model] == nil { vectors[p.model] = VectorIndex(model: p.model, dimension: p.values.count) }
                // Entities were validated against the model's dimension before reaching here.
                if vectors[p.model]!.dimension == p.values.count {
                    vectors[p.model]!.add(doc: Int32(doc), values: p.values)
                }
            }
            for (name, value) in e.attributes {
                switch value {
                case .string: strings.insert(name)
                case .number(let n):
                    let old = ranges[name] ?? (n, n, true)
                    ranges[name] = (min(old.min, n), max(old.max, n), old.integral && n.rounded() == n)
                }
            }
        }
        self.vectors = vectors
        self.positions = positions
        var relatedStart: [Int32] = [0]
        var relatedDocs = [Int32]()
        relatedStart.reserveCapacity(entities.count + 1)
        for e in entities {
            for r in e.related { if let d = positions[r] { relatedDocs.append(d) } }
            relatedStart.append(Int32(relatedDocs.count))
        }
        self.relatedStart = relatedStart
        self.relatedDocs = relatedDocs
        stringAttributes = strings
        var buckets = [String: NumberBuckets]()
        for (name, r) in ranges where !strings.contains(name) {
            buckets[name] = NumberBuckets(min: r.min, max: r.max, integral: r.integral)
        }
        self.buckets = buckets
        facetIndex = FacetIndex(entities: entities, categoryPrefixes: categoryPrefixes) { name, value in
            if let b = buckets[name], case .number(let n) = value { return b.label(b.index(of: n)) }
            return value.description
        }
    }

    /// The entity with this reference, if the snapshot has it.
    public func entity(_ ref: EntityRef) -> Entity? {
        positions[ref].map { entities[Int($0)] }
    }

    /// The related entities of document `doc` that are in the snapshot, as document numbers.
    func related(of doc: Int32) -> ArraySlice<Int32> {
        relatedDocs[Int(relatedStart[Int(doc)])..<Int(relatedStart[Int(doc) + 1])]
    }

    /// The number of entities.
    public var count: Int { entities.count }

    /// The dimension of a model's prints in this snapshot, if any entity has one.
    public func dimension(ofModel model: String) -> Int? { vectors[model]?.dimension }
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
        let span = max - min
        var width = 1.0
        if span > 0 {
            let raw = span / 10
            let magnitude = pow10(log10Double(raw))
            width = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
            if integral { width = Swift.max(1, width.rounded(.up)) }
        }
        self.width = width
        start = (min / width).rounded(.down) * width
        count = Swift.max(1, Int(((max - start) / width).rounded(.down)) + 1)
        self.integral = integral
    }

    func index(of value: Double) -> Int {
        Swift.min(count - 1, Swift.max(0, Int(((value - start) / width).rounded(.down))))
    }

    /// The bucket's bounds as a range filter would state them.
    func bounds(_ i: Int) -> (min: Double, max: Double) {
        let lo = start + Double(i) * width
        return integral ? (lo, lo + width - 1) : (lo, lo + width)
    }

    func label(_ i: Int) -> String {
        let b = bounds(i)
        return "\(formatNumber(b.min))..\(formatNumber(b.max))"
    }
}

private func pow10(_ x: Double) -> Double {
    var r = 1.0
    var n = Int(x)
    if n >= 0 {
        while n > 0 {
            r *= 10
            n -= 1
        }
    } else {
        while n < 0 {
            r /= 10
            n += 1
        }
    }
    return r
}

private func log10Double(_ x: Double) -> Double {
    // Enough precision for choosing an order of magnitude, without Foundation.
    var e = 0.0
    var v = x
    while v >= 10 {
        v /= 10
        e += 1
    }
    while v < 1 {
        v *= 10
        e -= 1
    }
    return e
}
