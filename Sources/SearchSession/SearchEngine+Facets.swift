extension SearchEngine {
    /// Exact, disjunctive facet counts over the candidates.
    ///
    /// A facet's counts apply every constraint except the facet's own selection: the type facet
    /// ignores the type selection, the category facet the category selection, an attribute's facet
    /// the filters on that attribute. The filter expression applies to all. Category counts include
    /// descendants (a `Music/Rock` album counts for `Music` and `Music/Rock`). Numeric attributes
    /// count in the snapshot's buckets.
    static func facets(
        _ s: CatalogSnapshot, candidates: [Candidate], constraints c: Constraints, request r: SearchRequest
    ) -> [Facet] {
        var filterNames = [String]()
        for f in c.filters where !filterNames.contains(f.attribute) { filterNames.append(f.attribute) }
        var types = [String: Int]()
        var categories = [String: Int]()
        var attributes = [String: [String: Int]]()
        var numericCounts = [String: [Int]]()
        var attributeNames = Set<String>()
        s.entities.withUnsafeBufferPointer { entities in
            for cand in candidates {
                guard c.passesExpression(entities[Int(cand.doc)]) else { continue }
                for name in entities[Int(cand.doc)].attributes.keys { attributeNames.insert(name) }
                let t = c.passesType(entities[Int(cand.doc)])
                let k = c.passesCategory(entities[Int(cand.doc)])
                var failed = [String]()
                for f in c.filters where !f.matches(entities[Int(cand.doc)]) && !failed.contains(f.attribute) {
                    failed.append(f.attribute)
                }
                if k && failed.isEmpty { types[entities[Int(cand.doc)].type, default: 0] += 1 }
                if t && failed.isEmpty {
                    for prefix in s.categoryPrefixes[Int(cand.doc)] { categories[prefix, default: 0] += 1 }
                }
                guard t && k && failed.count <= 1 else { continue }
                for (name, value) in entities[Int(cand.doc)].attributes {
                    if failed.count == 1 && failed[0] != name { continue }
                    if let b = s.buckets[name], case .number(let n) = value {
                        numericCounts[name, default: [Int](repeating: 0, count: b.count)][b.index(of: n)] += 1
                    } else {
                        attributes[name, default: [:]][value.description, default: 0] += 1
                    }
                }
            }
        }
        var out = [Facet]()
        out.append(
            Facet(
                name: "type", kind: .type,
                values: values(types, selected: Set(r.entityTypes))))
        out.append(
            Facet(
                name: "category", kind: .category,
                values: values(categories, selected: Set(c.categories))))
        for name in attributeNames.sorted() {
            let isNumeric = s.buckets[name] != nil
            var selected = Set<String>()
            for f in c.filters where f.attribute == name {
                switch f.condition {
                case .anyOf(let v):
                    if let b = s.buckets[name] {
                        for x in v { if let n = Double(x) { selected.insert(b.label(b.index(of: n))) } }
                    } else {
                        selected.formUnion(v)
                    }
                case .range(let lo, let hi):
                    if let b = s.buckets[name], let lo, let hi {
                        let i = b.index(of: lo)
                        if b.bounds(i) == (lo, hi) { selected.insert(b.label(i)) }
                    }
                }
            }
            var counts = attributes[name] ?? [:]
            if let b = s.buckets[name], let n = numericCounts[name] {
                for (i, c) in n.enumerated() where c > 0 { counts[b.label(i)] = c }
            }
            let v = values(counts, selected: selected)
            if v.isEmpty { continue }
            out.append(Facet(name: name, kind: isNumeric ? .number : .string, values: v))
        }
        return out
    }

    static func facetValue(_ s: CatalogSnapshot, _ name: String, _ value: AttributeValue) -> String {
        if let b = s.buckets[name], case .number(let n) = value { return b.label(b.index(of: n)) }
        return value.description
    }

    private static func values(_ counts: [String: Int], selected: Set<String>) -> [FacetValue] {
        var out = counts.map { FacetValue(value: $0.key, count: $0.value, selected: selected.contains($0.key)) }
        for s in selected where counts[s] == nil { out.append(FacetValue(value: s, count: 0, selected: true)) }
        return out.sorted(by: facetOrder)
    }
}
