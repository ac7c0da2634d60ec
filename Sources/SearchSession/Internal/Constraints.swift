/// The facet-bearing constraints of a refinement: entity types, categories (with descendants),
/// attribute filters and the filter expression.
struct Constraints {
    var types: Set<String>
    var categories: [String]
    var filters: [AttributeFilter]
    var expression: FilterExpression?

    /// Whether nothing is constrained (the first page of a capture): every candidate passes.
    var isEmpty: Bool { types.isEmpty && categories.isEmpty && filters.isEmpty && expression == nil }

    /// The constraints in one segment's own numbering, checked per document without strings.
    func compiled(for segment: Segment) -> SegmentConstraints {
        SegmentConstraints(self, segment: segment)
    }
}

/// ``Constraints`` compiled for one segment: which of its type and category numbers pass, and
/// each filter as the segment's attribute and value numbers.
struct SegmentConstraints {
    /// Per type number: whether it passes; `nil` when every type does.
    let allowedTypes: [Bool]?
    /// Per category number: whether it (or an ancestor) is selected; `nil` when every category does.
    let allowedCategories: [Bool]?
    let filters: [CompiledFilter]
    let expression: CompiledExpression?

    init(_ constraints: Constraints, segment: Segment) {
        allowedTypes =
            constraints.types.isEmpty
            ? nil : segment.typeNames.map { constraints.types.contains(segment.name($0)) }
        if constraints.categories.isEmpty {
            allowedCategories = nil
        } else {
            var allowed = [Bool]()
            allowed.reserveCapacity(segment.categoryNames.count)
            // Parents are numbered before their children: a category passes when it is selected or
            // its parent passes.
            for (number, name) in segment.categoryNames.enumerated() {
                let parent = segment.categoryParent[number]
                allowed.append(
                    constraints.categories.contains(segment.name(name)) || (parent != .max && allowed[Int(parent)]))
            }
            allowedCategories = allowed
        }
        filters = constraints.filters.map { CompiledFilter($0, segment: segment) }
        expression = constraints.expression.map { CompiledExpression($0, segment: segment) }
    }

    @inline(__always) func passesType(_ doc: Int, in segment: Segment) -> Bool {
        allowedTypes?[Int(segment.docType[doc])] ?? true
    }

    @inline(__always) func passesCategory(_ doc: Int, in segment: Segment) -> Bool {
        guard let allowedCategories else { return true }
        let category = segment.docCategory[doc]
        return category != .max && allowedCategories[Int(category)]
    }

    /// Whether a document passes every constraint.
    func passes(_ doc: Int, in segment: Segment) -> Bool {
        passesType(doc, in: segment) && passesCategory(doc, in: segment)
            && (expression?.matches(doc, in: segment) ?? true)
            && filters.allSatisfy { $0.matches(doc, in: segment) }
    }
}

/// One attribute filter in a segment's numbering.
struct CompiledFilter {
    let attribute: String
    /// The segment's number of the attribute; `nil` when no document has it (nothing passes).
    let number: UInt32?
    let condition: Condition

    enum Condition {
        /// The value ids that pass: the attribute's string values named, and its numbers whose
        /// text parses to a number named.
        case anyOf(Set<UInt32>)
        /// The value ids that pass: one run of the attribute's numbers (empty when none does).
        case range(Range<UInt32>)
    }

    init(_ filter: AttributeFilter, segment: Segment) {
        attribute = filter.attribute
        number = segment.attributeNumber(named: filter.attribute)
        guard let number else {
            condition = .anyOf([])
            return
        }
        switch filter.condition {
        case .anyOf(let texts):
            var values = Set<UInt32>()
            let wanted = Set(texts)
            for (value, text) in segment.valueStrings.enumerated()
            where segment.valueAttribute[value] == number && wanted.contains(segment.name(text)) {
                values.insert(UInt32(value))
            }
            for n in texts.compactMap({ Double($0) }) {
                if let id = segment.numberID(n, of: number) { values.insert(id) }
            }
            condition = .anyOf(values)
        case .range(let low, let high):
            let ids = segment.numberIDs(of: number)
            let first = segment.firstNumberID(atLeast: low ?? -.infinity, in: ids)
            let end = segment.firstNumberID(above: high ?? .infinity, in: ids)
            condition = .range(first..<max(first, end))
        }
    }

    /// Whether a document satisfies the filter; a missing attribute never does.
    func matches(_ doc: Int, in segment: Segment) -> Bool {
        guard let number, let p = segment.attribute(number, of: doc) else { return false }
        let value = segment.pairValue[p]
        switch condition {
        case .anyOf(let values): return values.contains(value)
        case .range(let ids): return ids.contains(value)
        }
    }
}

/// A filter expression in a segment's numbering.
indirect enum CompiledExpression {
    case filter(CompiledFilter)
    case all([CompiledExpression])
    case any([CompiledExpression])
    case not(CompiledExpression)

    init(_ expression: FilterExpression, segment: Segment) {
        switch expression {
        case .filter(let f): self = .filter(CompiledFilter(f, segment: segment))
        case .all(let children): self = .all(children.map { CompiledExpression($0, segment: segment) })
        case .any(let children): self = .any(children.map { CompiledExpression($0, segment: segment) })
        case .not(let child): self = .not(CompiledExpression(child, segment: segment))
        }
    }

    func matches(_ doc: Int, in segment: Segment) -> Bool {
        switch self {
        case .filter(let f): f.matches(doc, in: segment)
        case .all(let children): children.allSatisfy { $0.matches(doc, in: segment) }
        case .any(let children): children.contains { $0.matches(doc, in: segment) }
        case .not(let child): !child.matches(doc, in: segment)
        }
    }
}
