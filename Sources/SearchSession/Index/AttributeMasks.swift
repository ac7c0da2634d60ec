/// Which attributes each document of a segment has, a bit per attribute: made the first time a
/// refinement's facets are counted on the segment.
///
/// A refinement's facets show every attribute its unconstrained hits have, counted or not (a
/// document that fails the category still shows its attributes' facets, with the counts the
/// constraints leave). Noting that read each such document's whole row of pairs: most of the time
/// left in counting a category and year refinement of sparse-100k's commonest labels once filters
/// read columns (``AttributeColumn``). With the masks it is a few loads and ORs a document.
///
/// A document gets as many 64-bit words as the segment's attributes need, up to
/// ``maximumWords`` (eight bytes a document per 64 attributes, kept for the segment's life): with
/// a single word, a catalog of 105 attributes (recipes-100k) noted three in four of its documents
/// by their values, and its refinements took 3.8 ms at p99. Past 256 attributes, those from the
/// last bit on share it, and a document that has one is noted by its values.
final class AttributeMasks: @unchecked Sendable {
    // Written once in init, read-only after.
    private let storage: UnsafeMutableBufferPointer<UInt64>
    /// The words of each document's mask, and whether its last bit is shared.
    let layout: Layout

    /// Words a document's mask has at most: 256 attributes.
    static let maximumWords = 4

    /// How a segment's masks are laid out: `words` a document; when the segment has more
    /// attributes than bits, the last bit is shared by the attributes from it on.
    struct Layout {
        let words: Int
        let sharesLastBit: Bool

        init(attributes: Int) {
            words = min(AttributeMasks.maximumWords, max(1, (attributes + 63) / 64))
            sharesLastBit = attributes > words * 64
        }

        /// The bit (numbered across the words) of attribute `attribute`.
        @inline(__always) func bit(of attribute: UInt32) -> Int {
            min(Int(attribute), words * 64 - 1)
        }

        /// Whether bit `bit` is shared by several attributes (they are told apart by values).
        @inline(__always) func isShared(_ bit: Int) -> Bool { sharesLastBit && bit == words * 64 - 1 }
    }

    /// Per document, ``Layout/words`` words in a row: a bit per attribute it has (``Layout/bit(of:)``).
    var masks: UnsafeBufferPointer<UInt64> { UnsafeBufferPointer(storage) }

    /// The masks of every document of `segment`: one pass over its pairs.
    init(of segment: Segment) {
        layout = Layout(attributes: segment.attributeNames.count)
        let words = layout.words
        storage = .allocate(capacity: segment.count * words)
        storage.initialize(repeating: 0)
        for doc in 0..<segment.count {
            for pair in segment.attributes(of: doc) {
                let bit = layout.bit(of: segment.attribute(ofValue: segment.pairValue[pair]))
                storage[doc * words + bit / 64] |= 1 << UInt64(bit % 64)
            }
        }
    }

    deinit { storage.deallocate() }
}
