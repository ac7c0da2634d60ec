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
        let index = s.facetIndex
        var typeCounts = [Int](repeating: 0, count: index.typeNames.count)
        var categoryCounts = [Int](repeating: 0, count: index.categoryNames.count)
        var valueCounts = [Int](repeating: 0, count: index.valueLabels.count)
        var attributeSeen = [Bool](repeating: false, count: index.attributeNames.count)
        // The common refinement selects no type and no filters: skip those checks per hit.
        let allowedTypes = c.types.isEmpty ? nil : index.typeNames.map { c.types.contains($0) }
        // Entities are read field by field in place, never copied whole.
        let entities = s.entities
        for cand in candidates {
            let doc = Int(cand.doc)
            if let e = c.expression, !e.matches(attributes: entities[doc].attributes) { continue }
            let pairs = Int(index.pairStart[doc])..<Int(index.pairStart[doc + 1])
            for p in pairs { attributeSeen[Int(index.pairs[p].attribute)] = true }
            let t = allowedTypes?[Int(index.typeOf[doc])] ?? true
            let k = c.categories.isEmpty || c.passesCategory(entities[doc].category)
            var failed = [String]()
            if !c.filters.isEmpty {
                let attributes = entities[doc].attributes
                for f in c.filters where !f.matches(attributes: attributes) && !failed.contains(f.attribute) {
                    failed.append(f.attribute)
                }
            }
            if k && failed.isEmpty { typeCounts[Int(index.typeOf[doc])] += 1 }
            if t && failed.isEmpty {
                for p in Int(index.categoryStart[doc])..<Int(index.categoryStart[doc + 1]) {
                    categoryCounts[Int(index.categoryIDs[p])] += 1
                }
            }
            guard t && k && failed.count <= 1 else { continue }
            for p in pairs {
                let pair = index.pairs[p]
                if failed.count == 1 && failed[0] != index.attributeNames[Int(pair.attribute)] { continue }
                valueCounts[Int(pair.value)] += 1
            }
        }
        func named(_ names: [String], _ counts: some Collection<Int>) -> [String: Int] {
            var out = [String: Int]()
            for (name, count) in zip(names, counts) where count > 0 { out[name] = count }
            return out
        }
        var out = [Facet]()
        out.append(
            Facet(
                name: "type", kind: .type,
                values: values(named(index.typeNames, typeCounts), selected: Set(r.entityTypes))))
        out.append(
            Facet(
                name: "category", kind: .category,
                values: values(named(index.categoryNames, categoryCounts), selected: Set(c.categories))))
        for (number, name) in index.attributeNames.enumerated() where attributeSeen[number] {
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
            let range = Int(index.valueStart[number])..<Int(index.valueStart[number + 1])
            let counts = named(Array(index.valueLabels[range]), valueCounts[range])
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
