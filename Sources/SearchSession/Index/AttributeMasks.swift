/// Which attributes each document of a segment has, a bit per attribute: made the first time a
/// refinement's facets are counted on the segment.
///
/// A refinement's facets show every attribute its unconstrained hits have, counted or not (a
/// document that fails the category still shows its attributes' facets, with the counts the
/// constraints leave). Noting that read each such document's whole row of pairs: most of the time
/// left in counting a category and year refinement of sparse-100k's commonest labels once filters
/// read columns (``AttributeColumn``). With the masks it is one load and an OR a document (eight
/// bytes a document, kept for the segment's life). Attributes numbered from 63 share the last bit,
/// and a document that has one is noted by its values, as before: a catalog of more than 63
/// attributes pays that for every document with one of the last (numbered in the order the catalog
/// first names them).
final class AttributeMasks: @unchecked Sendable {
    // Written once in init, read-only after.
    private let storage: UnsafeMutableBufferPointer<UInt64>

    /// The bit that attributes numbered 63 and more share.
    static let overflowBit: UInt64 = 1 << 63

    /// Per document: a bit per attribute it has (``bit(of:)``).
    var masks: UnsafeBufferPointer<UInt64> { UnsafeBufferPointer(storage) }

    /// The bit of attribute `attribute`.
    @inline(__always) static func bit(of attribute: UInt32) -> UInt64 {
        attribute < 63 ? 1 << UInt64(attribute) : overflowBit
    }

    /// The masks of every document of `segment`: one pass over its pairs.
    init(of segment: Segment) {
        storage = .allocate(capacity: segment.count)
        for doc in 0..<segment.count {
            var mask: UInt64 = 0
            for pair in segment.attributes(of: doc) {
                mask |= Self.bit(of: segment.attribute(ofValue: segment.pairValue[pair]))
            }
            storage.initializeElement(at: doc, to: mask)
        }
    }

    deinit { storage.deallocate() }
}
