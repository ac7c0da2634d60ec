/// The facet values of a snapshot numbered across its segments, with each segment's own numbers
/// mapped to them, so counting reads a document's local numbers and adds to flat arrays.
///
/// Numbers are given in the order values are met, segment by segment; facets are put in order
/// when they are shown. Numeric attributes (no string value in any segment) count in buckets laid
/// out over the snapshot's range (see ``NumberBuckets``).
struct FacetNumbering: Sendable {
    var typeNames: [String] = []
    var categoryNames: [String] = []
    /// Each category's parent number, or -1.
    var categoryParent: [Int32] = []
    var attributeNames: [String] = []
    /// Per attribute: its bucket layout when it is numeric only.
    var buckets: [NumberBuckets?] = []
    /// Per attribute: where its bucket counts start in ``FacetCounts/buckets``.
    var bucketStart: [Int32] = []
    /// Per attribute: whether some value is a string (numbers then show as their text).
    var hasStrings: [Bool] = []
    /// Per string value: its text and its attribute's number.
    var valueLabels: [String] = []
    var valueAttribute: [Int32] = []

    /// Per segment, local number → snapshot number.
    var typeMap: [[Int32]] = []
    var categoryMap: [[Int32]] = []
    var attributeMap: [[Int32]] = []
    var valueMap: [[Int32]] = []

    private var typeNumbers: [String: Int32] = [:]
    private var categoryNumbers: [String: Int32] = [:]
    private var attributeNumbers: [String: Int32] = [:]
    private var valueNumbers: [ValueKey: Int32] = [:]

    private struct ValueKey: Hashable {
        var attribute: Int32
        var label: String
    }

    /// Numbers the values of `segments`.
    init(segments: [Segment]) {
        var ranges = [(min: Double, max: Double, integral: Bool)?]()
        for segment in segments {
            typeMap.append(segment.typeNames.map { number(&typeNumbers, &typeNames, segment.string($0)) })
            var categories = [Int32]()
            for (local, name) in segment.categoryNames.enumerated() {
                let global = number(&categoryNumbers, &categoryNames, segment.string(name))
                if Int(global) == categoryParent.count {
                    let parent = segment.categoryParent[local]
                    categoryParent.append(parent == .max ? -1 : categories[Int(parent)])
                }
                categories.append(global)
            }
            categoryMap.append(categories)
            var attributes = [Int32]()
            for (local, name) in segment.attributeNames.enumerated() {
                let global = number(&attributeNumbers, &attributeNames, segment.string(name))
                if Int(global) == hasStrings.count {
                    hasStrings.append(false)
                    ranges.append(nil)
                }
                let kinds = segment.attributeKinds[local]
                if kinds & 2 != 0 { hasStrings[Int(global)] = true }
                if kinds & 1 != 0 {
                    let low = segment.attributeMinimum[local]
                    let high = segment.attributeMaximum[local]
                    let integral = kinds & 4 != 0
                    let old = ranges[Int(global)] ?? (low, high, integral)
                    ranges[Int(global)] = (min(old.min, low), max(old.max, high), old.integral && integral)
                }
                attributes.append(global)
            }
            attributeMap.append(attributes)
            var values = [Int32]()
            values.reserveCapacity(segment.valueStrings.count)
            for (local, text) in segment.valueStrings.enumerated() {
                let key = ValueKey(
                    attribute: attributes[Int(segment.valueAttribute[local])], label: segment.string(text))
                if let known = valueNumbers[key] {
                    values.append(known)
                } else {
                    let global = Int32(valueLabels.count)
                    valueNumbers[key] = global
                    valueLabels.append(key.label)
                    valueAttribute.append(key.attribute)
                    values.append(global)
                }
            }
            valueMap.append(values)
        }
        var start: Int32 = 0
        for (attribute, range) in ranges.enumerated() {
            bucketStart.append(start)
            if let range, !hasStrings[attribute] {
                let layout = NumberBuckets(min: range.min, max: range.max, integral: range.integral)
                buckets.append(layout)
                start += Int32(layout.count)
            } else {
                buckets.append(nil)
            }
        }
        bucketStart.append(start)
    }

    private func number(_ numbers: inout [String: Int32], _ names: inout [String], _ name: String) -> Int32 {
        if let known = numbers[name] { return known }
        let global = Int32(names.count)
        numbers[name] = global
        names.append(name)
        return global
    }

    /// The number of an attribute name, if the snapshot has it.
    func attribute(named name: String) -> Int32? { attributeNumbers[name] }

    /// The number of a category path, if the snapshot has it.
    func category(named name: String) -> Int32? { categoryNumbers[name] }

    /// The number of a type, if the snapshot has it.
    func type(named name: String) -> Int32? { typeNumbers[name] }

    /// The facet label of a value of attribute `attribute`.
    func label(attribute: Int, _ value: AttributeValue) -> String {
        if let layout = buckets[attribute], case .number(let n) = value { return layout.label(layout.index(of: n)) }
        return value.description
    }
}

/// Facet counts in a snapshot's numbering.
struct FacetCounts: Sendable {
    var types: [Int32]
    var categories: [Int32]
    var values: [Int32]
    var buckets: [Int32]
    /// Numbers of attributes that also have strings, counted by their text.
    var textNumbers: [Int32: [String: Int32]] = [:]

    init(_ numbering: FacetNumbering) {
        types = [Int32](repeating: 0, count: numbering.typeNames.count)
        categories = [Int32](repeating: 0, count: numbering.categoryNames.count)
        values = [Int32](repeating: 0, count: numbering.valueLabels.count)
        buckets = [Int32](repeating: 0, count: Int(numbering.bucketStart.last ?? 0))
    }
}
