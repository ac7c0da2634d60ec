/// Counts documents' facet values into a snapshot's numbering.
enum FacetCounter {
    /// Adds (or with `sign` −1, removes) every facet value of one document.
    static func add(
        doc: Int, of segment: Segment, segment s: Int, numbering: FacetNumbering, to counts: inout FacetCounts,
        sign: Int32
    ) {
        counts.types[Int(numbering.typeMap[s][Int(segment.docType[doc])])] += sign
        var category = segment.docCategory[doc]
        while category != .max {
            counts.categories[Int(numbering.categoryMap[s][Int(category)])] += sign
            category = segment.categoryParent[Int(category)]
        }
        for p in segment.attributes(of: doc) {
            addValue(p, of: segment, segment: s, numbering: numbering, to: &counts, sign: sign)
        }
    }

    /// Adds the value of attribute pair `p`.
    @inline(__always) static func addValue(
        _ p: Int, of segment: Segment, segment s: Int, numbering: FacetNumbering, to counts: inout FacetCounts,
        sign: Int32
    ) {
        let value = segment.attributeValue[p]
        if value != .max {
            counts.values[Int(numbering.valueMap[s][Int(value)])] += sign
            return
        }
        let attribute = numbering.attributeMap[s][Int(segment.attributeName[p])]
        let n = segment.attributeNumber[p]
        if let layout = numbering.buckets[Int(attribute)] {
            counts.buckets[Int(numbering.bucketStart[Int(attribute)]) + layout.index(of: n)] += sign
        } else {
            counts.textNumbers[attribute, default: [:]][formatNumber(n), default: 0] += sign
        }
    }
}

extension SearchEngine {
    /// Exact, disjunctive facet counts over the candidates.
    ///
    /// A facet's counts apply every constraint except the facet's own selection: the type facet
    /// ignores the type selection, the category facet the category selection, an attribute's facet
    /// the filters on that attribute. The filter expression applies to all. Category counts include
    /// descendants (a `Music/Rock` album counts for `Music` and `Music/Rock`). Numeric attributes
    /// count in the snapshot's buckets.
    ///
    /// - Parameter candidates: Documents in ascending order, or `nil` for every live document:
    ///   then counts the snapshot keeps are used where a facet's own selection is the only
    ///   constraint, and otherwise the documents are read column by column.
    static func facets(
        _ s: CatalogSnapshot, candidates: [Candidate]?, constraints c: Constraints, request r: SearchRequest
    ) -> [Facet] {
        let numbering = s.numbering
        if candidates == nil && c.isEmpty {
            return facets(s.everythingCounts, seen: nil, numbering: numbering, constraints: c, request: r)
        }
        var counts = FacetCounts(numbering)
        var seen = [Bool](repeating: false, count: numbering.attributeNames.count)
        var compiled = [SegmentConstraints?](repeating: nil, count: s.segments.count)
        func visit(_ doc: Int32) {
            let (si, local) = s.locate(doc)
            if compiled[si] == nil { compiled[si] = c.compiled(for: s.segments[si]) }
            count(
                local, segment: si, in: s, constraints: compiled[si]!, numbering: numbering, counts: &counts,
                seen: &seen)
        }
        if let candidates {
            for candidate in candidates { visit(candidate.doc) }
        } else {
            for doc in s.liveDocs() { visit(doc) }
        }
        return facets(counts, seen: seen, numbering: numbering, constraints: c, request: r)
    }

    /// Adds one document to the disjunctive counts.
    @inline(__always) private static func count(
        _ doc: Int, segment si: Int, in s: CatalogSnapshot, constraints c: SegmentConstraints,
        numbering: FacetNumbering, counts: inout FacetCounts, seen: inout [Bool]
    ) {
        let segment = s.segments[si]
        if let e = c.expression, !e.matches(doc, in: segment) { return }
        let pairs = segment.attributes(of: doc)
        let attributes = numbering.attributeMap[si]
        for p in pairs { seen[Int(attributes[Int(segment.attributeName[p])])] = true }
        let typeOK = c.passesType(doc, in: segment)
        let categoryOK = c.passesCategory(doc, in: segment)
        // The attributes whose filters the document fails (a facet ignores its own filters).
        var failed: String? = nil
        var failures = 0
        for f in c.filters where !f.matches(doc, in: segment) && failed != f.attribute {
            failures += failed == nil ? 1 : 2
            failed = failed ?? f.attribute
            if failures > 1 { break }
        }
        if categoryOK && failures == 0 { counts.types[Int(numbering.typeMap[si][Int(segment.docType[doc])])] += 1 }
        if typeOK && failures == 0 {
            var category = segment.docCategory[doc]
            while category != .max {
                counts.categories[Int(numbering.categoryMap[si][Int(category)])] += 1
                category = segment.categoryParent[Int(category)]
            }
        }
        guard typeOK && categoryOK && failures <= 1 else { return }
        for p in pairs {
            if let failed, !segment.string(segment.attributeNames[Int(segment.attributeName[p])], equals: failed) {
                continue
            }
            FacetCounter.addValue(p, of: segment, segment: si, numbering: numbering, to: &counts, sign: 1)
        }
    }

    /// The facets of counts: type, category, then attributes by name; values most first.
    private static func facets(
        _ counts: FacetCounts, seen: [Bool]?, numbering: FacetNumbering, constraints c: Constraints,
        request r: SearchRequest
    ) -> [Facet] {
        func named(_ names: [String], _ counts: [Int32]) -> [String: Int] {
            var out = [String: Int]()
            for (name, count) in zip(names, counts) where count > 0 { out[name] = Int(count) }
            return out
        }
        var out = [Facet]()
        out.append(
            Facet(
                name: "type", kind: .type,
                values: values(named(numbering.typeNames, counts.types), selected: Set(r.entityTypes))))
        out.append(
            Facet(
                name: "category", kind: .category,
                values: values(named(numbering.categoryNames, counts.categories), selected: Set(c.categories))))
        var attributeCounts = [[String: Int]](repeating: [:], count: numbering.attributeNames.count)
        for (value, count) in counts.values.enumerated() where count > 0 {
            attributeCounts[Int(numbering.valueAttribute[value])][numbering.valueLabels[value]] = Int(count)
        }
        for (attribute, labels) in counts.textNumbers {
            for (label, count) in labels where count > 0 {
                attributeCounts[Int(attribute)][label, default: 0] += Int(count)
            }
        }
        for (attribute, layout) in numbering.buckets.enumerated() {
            guard let layout else { continue }
            let start = Int(numbering.bucketStart[attribute])
            for bucket in 0..<layout.count where counts.buckets[start + bucket] > 0 {
                attributeCounts[attribute][layout.label(bucket)] = Int(counts.buckets[start + bucket])
            }
        }
        let order = numbering.attributeNames.indices.sorted {
            numbering.attributeNames[$0] < numbering.attributeNames[$1]
        }
        for attribute in order {
            let name = numbering.attributeNames[attribute]
            if let seen, !seen[attribute] { continue }
            if seen == nil && attributeCounts[attribute].isEmpty { continue }
            let layout = numbering.buckets[attribute]
            var selected = Set<String>()
            for f in c.filters where f.attribute == name {
                switch f.condition {
                case .anyOf(let v):
                    if let layout {
                        for x in v { if let n = Double(x) { selected.insert(layout.label(layout.index(of: n))) } }
                    } else {
                        selected.formUnion(v)
                    }
                case .range(let lo, let hi):
                    if let layout, let lo, let hi {
                        let i = layout.index(of: lo)
                        if layout.bounds(i) == (lo, hi) { selected.insert(layout.label(i)) }
                    }
                }
            }
            let v = values(attributeCounts[attribute], selected: selected)
            if v.isEmpty { continue }
            out.append(Facet(name: name, kind: layout != nil ? .number : .string, values: v))
        }
        return out
    }

    private static func values(_ counts: [String: Int], selected: Set<String>) -> [FacetValue] {
        var out = counts.map { FacetValue(value: $0.key, count: $0.value, selected: selected.contains($0.key)) }
        for s in selected where counts[s] == nil { out.append(FacetValue(value: s, count: 0, selected: true)) }
        return out.sorted(by: facetOrder)
    }
}
