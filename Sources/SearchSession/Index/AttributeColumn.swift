/// One attribute of a segment as a column: each document's value id of it, made the first time a
/// filter names the attribute (the column a filter reads, as Lucene's doc values and tantivy's
/// fast fields are).
///
/// A segment keeps a document's attributes as one row of pairs. A filter read that whole row for
/// every document it checked, and a refinement checks every document the labels match, not only
/// those it returns: a year range with a category on sparse-100k's commonest labels (90,000
/// documents of 20–30 pairs) took 5.6–8.8 ms at p99 in process, against 1 ms for the same
/// search without them. Read from the column, a check is one load. The column is made once per segment
/// and attribute (one pass over the pairs) and kept for the segment's life: four bytes a document
/// for each attribute a filter named.
final class AttributeColumn: @unchecked Sendable {
    // Written once in init, read-only after.
    private let storage: UnsafeMutableBufferPointer<UInt32>

    /// A document without the attribute.
    static let missing = UInt32.max

    /// Per document: its value id of the attribute, or ``missing``.
    var ids: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(storage) }

    /// The column of attribute `attribute` (a number of `segment`'s) over every document of
    /// `segment`.
    init(attribute: UInt32, of segment: Segment) {
        storage = .allocate(capacity: segment.count)
        storage.initialize(repeating: Self.missing)
        // A number's id names its attribute by its run; a string's by the value's attribute,
        // looked up only when the attribute has strings at all.
        let numbers = segment.numberIDs(of: attribute)
        let hasStrings =
            Int(attribute) < segment.attributeKinds.count && segment.attributeKinds[Int(attribute)] & 2 != 0
        for doc in 0..<segment.count {
            for pair in segment.attributes(of: doc) {
                let value = segment.pairValue[pair]
                if numbers.contains(value)
                    || (hasStrings && !segment.isNumber(value) && segment.valueAttribute[Int(value)] == attribute)
                {
                    storage[doc] = value
                    break
                }
            }
        }
    }

    deinit { storage.deallocate() }
}
