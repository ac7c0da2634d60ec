/// Facet counts of one segment over all its documents (deleted ones too), in the segment's own
/// numbering: what the match-all and browse states of a snapshot start from, so they never scan
/// the catalog per call (a snapshot subtracts its few deleted documents instead).
struct FacetTotals: Sendable {
    /// Documents per type number.
    let types: [Int32]
    /// Documents per category number, each counted for its category and every ancestor.
    let categories: [Int32]
    /// Documents per value id (string values, then numbers: see ``Segment/valueCount``).
    let values: [Int32]

    init(counting segment: Segment, docs: Range<Int>) {
        var types = [Int32](repeating: 0, count: segment.typeNames.count)
        var categories = [Int32](repeating: 0, count: segment.categoryNames.count)
        var values = [Int32](repeating: 0, count: segment.valueCount)
        for doc in docs {
            types[Int(segment.docType[doc])] += 1
            var category = segment.docCategory[doc]
            while category != .max {
                categories[Int(category)] += 1
                category = segment.categoryParent[Int(category)]
            }
            for pair in segment.attributes(of: doc) { values[Int(segment.pairValue[pair])] += 1 }
        }
        self.types = types
        self.categories = categories
        self.values = values
    }

    /// How many documents of each bucket of `buckets` have attribute `attribute`, added to
    /// `counts`: a pass over the attribute's distinct numbers (``Segment/numberIDs(of:)``), each
    /// bucketed with ``NumberBuckets/index(of:)`` as a per-document pass would.
    func addCounts(
        attribute: UInt32, of segment: Segment, in buckets: NumberBuckets, to counts: UnsafeMutableBufferPointer<Int32>
    ) {
        for id in segment.numberIDs(of: attribute) where values[Int(id)] != 0 {
            counts[buckets.index(of: segment.number(id))] += values[Int(id)]
        }
    }
}
