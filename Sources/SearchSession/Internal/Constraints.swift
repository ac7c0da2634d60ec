internal import Foundation

/// The facet-bearing constraints of a refinement: entity types, categories (with descendants),
/// attribute filters and the filter expression.
struct Constraints {
    var types: Set<String>
    var categories: [String]
    var filters: [AttributeFilter]
    var expression: FilterExpression?

    /// Nothing constrained.
    static let unconstrained = Constraints(types: [], categories: [], filters: [], expression: nil)

    /// Whether nothing is constrained (the first page of a capture): every candidate passes.
    var isEmpty: Bool { types.isEmpty && categories.isEmpty && filters.isEmpty && expression == nil }

    /// The constraints in one segment's own numbering, checked per document without strings.
    func compiled(for segment: Segment) -> SegmentConstraints {
        SegmentConstraints(self, segment: segment)
    }
}

/// ``Constraints`` compiled for one segment: which of its type and category numbers pass, and
/// each filter as the segment's attribute and value numbers.
///
/// A class over flat buffers: it is checked once per candidate, tens of thousands of times a
/// call, and a struct of arrays and sets would be copied (retained and released) at each check.
final class SegmentConstraints {
    /// Per type number: whether it passes; empty when every type does.
    private let allowedTypes: UnsafeMutableBufferPointer<Bool>
    /// Per category number: whether it (or an ancestor) is selected; empty when every category does.
    private let allowedCategories: UnsafeMutableBufferPointer<Bool>
    private let checksTypes: Bool
    private let checksCategories: Bool
    let filters: [CompiledFilter]
    let expression: CompiledExpression?

    init(_ constraints: Constraints, segment: Segment) {
        checksTypes = !constraints.types.isEmpty
        allowedTypes = .allocate(capacity: checksTypes ? segment.typeNames.count : 0)
        if checksTypes {
            for (number, name) in segment.typeNames.enumerated() {
                allowedTypes.initializeElement(
                    at: number, to: constraints.types.contains { segment.name(name, equals: $0) })
            }
        }
        checksCategories = !constraints.categories.isEmpty
        allowedCategories = .allocate(capacity: checksCategories ? segment.categoryNames.count : 0)
        if checksCategories {
            // Parents are numbered before their children: a category passes when it is selected or
            // its parent passes. Names are compared as the segment's bytes: a deep tree has
            // thousands of paths, and making a String of each was most of what compiling a category
            // refinement cost (every search compiles it for each segment, more than once).
            let selected = constraints.categories.map { Array($0.utf8) }
            for (number, name) in segment.categoryNames.enumerated() {
                let parent = segment.categoryParent[number]
                var passes = parent != .max && allowedCategories[Int(parent)]
                if !passes {
                    let bytes = segment.nameBytes(name)
                    for index in selected.indices where selected[index].count == bytes.count {
                        passes = selected[index].withUnsafeBytes {
                            bytes.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                        }
                        if passes { break }
                    }
                }
                allowedCategories.initializeElement(at: number, to: passes)
            }
        }
        filters = constraints.filters.map { CompiledFilter($0, segment: segment) }
        expression = constraints.expression.map { CompiledExpression($0, segment: segment) }
    }

    deinit {
        allowedTypes.deallocate()
        allowedCategories.deallocate()
        for filter in filters { filter.release() }
        expression?.release()
    }

    @inline(__always) func passesType(_ doc: Int, in segment: Segment) -> Bool {
        !checksTypes || allowedTypes[Int(segment.docType[doc])]
    }

    @inline(__always) func passesCategory(_ doc: Int, in segment: Segment) -> Bool {
        guard checksCategories else { return true }
        let category = segment.docCategory[doc]
        return category != .max && allowedCategories[Int(category)]
    }

    /// Whether a document passes every constraint.
    func passes(_ doc: Int, in segment: Segment) -> Bool {
        guard passesType(doc, in: segment) && passesCategory(doc, in: segment) else { return false }
        if let expression, !expression.matches(doc, in: segment) { return false }
        for filter in filters where !filter.matches(doc, in: segment) { return false }
        return true
    }

    /// How a document stands against the constraints for disjunctive counting (a facet counts
    /// the documents that pass every constraint but its own); `nil` when it fails the filter
    /// expression, which every facet applies.
    func standing(_ doc: Int, in segment: Segment) -> Standing? {
        if let expression, !expression.matches(doc, in: segment) { return nil }
        var failed: UInt32? = nil
        var failures = 0
        for filter in filters where !filter.matches(doc, in: segment) {
            if failed == filter.number { continue }
            failures += 1
            failed = filter.number
            if failures > 1 { break }
        }
        return Standing(
            typeOK: passesType(doc, in: segment), categoryOK: passesCategory(doc, in: segment), failed: failed,
            failures: failures)
    }
}

/// How a document stands against a refinement's constraints, for disjunctive counting.
struct Standing {
    let typeOK: Bool
    let categoryOK: Bool
    /// The attribute whose filters the document fails, if exactly one does.
    let failed: UInt32?
    /// How many attributes' filters it fails (counted up to 2: two or more count nowhere).
    let failures: Int

    var countsType: Bool { categoryOK && failures == 0 }
    var countsCategory: Bool { typeOK && failures == 0 }
    /// Whether every attribute value of the document counts (it passes every constraint).
    var countsEveryValue: Bool { typeOK && categoryOK && failures == 0 }
    /// Whether the values of exactly one attribute count: the one whose filters it fails.
    var countsSomeValues: Bool { typeOK && categoryOK && failures == 1 }
    func countsValue(ofAttribute attribute: UInt32) -> Bool {
        typeOK && categoryOK && (failures == 0 || (failures == 1 && failed == attribute))
    }
}

/// One attribute filter in a segment's numbering: plain values, so checking it copies nothing
/// that is counted (the ids of an any-of filter live as long as the constraints that own them;
/// the attribute's column as long as its segment, which the search holds).
struct CompiledFilter {
    /// The segment's number of the attribute; `.max` when no document has it (nothing passes).
    let number: UInt32
    /// Per document, its value id of the attribute (``AttributeColumn``); empty when no
    /// document has it.
    private let column: UnsafeBufferPointer<UInt32>
    /// A range filter passes one run of the attribute's numbers (empty when none does).
    private let range: Range<UInt32>?
    /// An any-of filter passes these value ids, ascending: the attribute's string values named,
    /// and its numbers whose text parses to a number named.
    private let values: UnsafeMutableBufferPointer<UInt32>

    /// The filter compiled; whoever keeps it calls ``release()`` once it is done with it.
    init(_ filter: AttributeFilter, segment: Segment) {
        let number = segment.attributeNumber(named: filter.attribute)
        self.number = number ?? .max
        column = number.map { segment.column(ofAttribute: $0).ids } ?? UnsafeBufferPointer(start: nil, count: 0)
        var ids = [UInt32]()
        switch (filter.condition, number) {
        case (_, nil):
            range = nil
        case (.anyOf(let texts), let number?):
            range = nil
            let wanted = Set(texts)
            for (value, text) in segment.valueStrings.enumerated()
            where segment.valueAttribute[value] == number && wanted.contains(segment.name(text)) {
                ids.append(UInt32(value))
            }
            for parsed in texts.compactMap({ Double($0) }) {
                if let id = segment.numberID(parsed, of: number), !ids.contains(id) { ids.append(id) }
            }
            ids.sort()
        case (.range(let low, let high), let number?):
            let all = segment.numberIDs(of: number)
            let first = segment.firstNumberID(atLeast: low ?? -.infinity, in: all)
            let end = segment.firstNumberID(above: high ?? .infinity, in: all)
            range = first..<max(first, end)
        }
        values = .allocate(capacity: ids.count)
        _ = values.initialize(from: ids)
    }

    func release() { values.deallocate() }

    /// Whether a document satisfies the filter; a missing attribute never does.
    @inline(__always) func matches(_ doc: Int, in segment: Segment) -> Bool {
        guard number != .max else { return false }
        let value = column[doc]
        // A missing value (`AttributeColumn.missing`) is past every id: no range or list has it.
        if let range { return range.contains(value) }
        guard let first = values.first, let last = values.last, value >= first && value <= last else { return false }
        var low = 0
        var high = values.count
        while low < high {
            let mid = (low + high) >> 1
            if values[mid] < value { low = mid + 1 } else { high = mid }
        }
        return values[low] == value
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
        case .filter(let filter): self = .filter(CompiledFilter(filter, segment: segment))
        case .all(let children): self = .all(children.map { CompiledExpression($0, segment: segment) })
        case .any(let children): self = .any(children.map { CompiledExpression($0, segment: segment) })
        case .not(let child): self = .not(CompiledExpression(child, segment: segment))
        }
    }

    /// Releases every filter's ids (see ``CompiledFilter/release()``).
    func release() {
        switch self {
        case .filter(let filter): filter.release()
        case .all(let children), .any(let children): for child in children { child.release() }
        case .not(let child): child.release()
        }
    }

    func matches(_ doc: Int, in segment: Segment) -> Bool {
        switch self {
        case .filter(let filter): filter.matches(doc, in: segment)
        case .all(let children): children.allSatisfy { $0.matches(doc, in: segment) }
        case .any(let children): children.contains { $0.matches(doc, in: segment) }
        case .not(let child): !child.matches(doc, in: segment)
        }
    }
}
