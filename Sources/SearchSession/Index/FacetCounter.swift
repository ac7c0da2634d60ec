/// One counter of a snapshot's facet counts (``FacetCounts``): what a document adds one to.
enum FacetCounter: Hashable {
    case type(Int)
    case category(Int)
    case value(Int)
    case bucket(Int)
    /// A number of an attribute that also has strings, counted by its text.
    case textNumber(attribute: Int32, label: String)
}

extension FacetNumbering {
    /// Calls `body` with each counter document `doc` of `segment` (mapped by `numbers`) adds one
    /// to, as ``FacetTally/add(_:of:_:sign:)`` counts it: its type, its category and each
    /// ancestor, each attribute value (a number in its bucket, or by its text).
    func forEachCounter(
        of doc: Int, in segment: Segment, _ numbers: SegmentNumbers, _ body: (FacetCounter) -> Void
    ) {
        body(.type(Int(numbers.types[Int(segment.docType[doc])])))
        var category = segment.docCategory[doc]
        while category != .max {
            body(.category(Int(numbers.categories[Int(category)])))
            category = segment.categoryParent[Int(category)]
        }
        for pair in segment.attributes(of: doc) {
            let value = segment.pairValue[pair]
            guard segment.isNumber(value) else {
                body(.value(Int(numbers.values[Int(value)])))
                continue
            }
            let attribute = Int(numbers.attributes[Int(segment.attribute(ofValue: value))])
            let number = segment.number(value)
            if let layout = buckets[attribute] {
                body(.bucket(Int(bucketStart[attribute]) + layout.index(of: number)))
            } else {
                body(.textNumber(attribute: Int32(attribute), label: formatNumber(number)))
            }
        }
    }
}
