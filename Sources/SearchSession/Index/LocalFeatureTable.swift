/// The local features (keypoint positions and binary descriptors, see ``LocalFeatures``) of one
/// segment's documents, as flat arrays read in place: what ``GeometricVerifier`` compares a query
/// with, without decoding catalog pictures again.
///
/// It lives beside its segment, in a file of its own (`.vlf` next to the segment's `.vis`, see
/// ``IndexDirectory``), so the segment format stays as it is and a catalog without pictures pays
/// a few bytes per document. The layout, little-endian:
///
/// - 16-byte header: the magic `VILF0002`, the document count (UInt32) and the checksum of every
///   byte after the header (at offset 12, where ``SegmentFormat`` keeps a segment's, so one check
///   serves both);
/// - per document, where its keypoints start (UInt32, count + 1 entries, the last one the total);
/// - every keypoint's x, y (Float32 each), in document order, 16-byte aligned;
/// - every keypoint's descriptor (``LocalFeatures/descriptorBytes`` bytes), 16-byte aligned.
///
/// A document without a picture (an entity written through the API brings a print, not pixels)
/// has no keypoints: its picture can match only on the print (see ``ImageMatchRule``). The buffers
/// point into `region`, which never changes: that is what makes it `Sendable`.
struct LocalFeatureTable: @unchecked Sendable {
    static let magic: [UInt8] = Array("VILF0002".utf8)
    static let headerSize = 16

    /// The bytes, a heap allocation or a mapped file.
    let region: ByteRegion
    /// The number of documents.
    let count: Int
    private let starts: UnsafeBufferPointer<UInt32>
    private let positions: UnsafeBufferPointer<Float>
    private let descriptors: UnsafeBufferPointer<UInt8>

    /// Reads a table in place.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the bytes are not a whole table of this format.
    init(_ region: ByteRegion) throws(SearchError) {
        let damaged = SearchError(code: .storage, message: "not a local feature file of this version")
        guard region.count >= Self.headerSize, region.bytes(at: 0, count: 8) == Self.magic else { throw damaged }
        let count = Int(region.load(region.base.advanced(by: 8).assumingMemoryBound(to: UInt32.self)))
        let startsEnd = Self.headerSize + 4 * (count + 1)
        guard startsEnd <= region.count else { throw damaged }
        let starts = UnsafeBufferPointer(
            start: region.base.advanced(by: Self.headerSize).assumingMemoryBound(to: UInt32.self), count: count + 1)
        let keypoints = Int(starts[count])
        let positionsAt = SegmentFormat.aligned(startsEnd)
        let descriptorsAt = SegmentFormat.aligned(positionsAt + 8 * keypoints)
        guard descriptorsAt + LocalFeatures.descriptorBytes * keypoints <= region.count,
            zip(starts.dropLast(), starts.dropFirst()).allSatisfy({ $0 <= $1 })
        else { throw damaged }
        self.region = region
        self.count = count
        self.starts = starts
        positions = UnsafeBufferPointer(
            start: region.base.advanced(by: positionsAt).assumingMemoryBound(to: Float.self), count: 2 * keypoints)
        descriptors = UnsafeBufferPointer(
            start: region.base.advanced(by: descriptorsAt).assumingMemoryBound(to: UInt8.self),
            count: LocalFeatures.descriptorBytes * keypoints)
    }

    /// A table of `count` documents without keypoints (a segment built before any picture was
    /// described, or of entities that had none).
    static func empty(count: Int) -> LocalFeatureTable {
        var builder = Builder()
        for _ in 0..<count { builder.add(nil) }
        // The builder's own output always has a consistent shape.
        return try! LocalFeatureTable(builder.finish())
    }

    /// How many keypoints `doc` has.
    func keypointCount(of doc: Int) -> Int { Int(starts[doc + 1] - starts[doc]) }

    /// The keypoints of `doc` in place: positions (x, y each) and descriptors.
    func features(of doc: Int) -> (positions: UnsafeBufferPointer<Float>, descriptors: UnsafeBufferPointer<UInt8>) {
        let (start, end) = (Int(starts[doc]), Int(starts[doc + 1]))
        return (
            UnsafeBufferPointer(rebasing: positions[(2 * start)..<(2 * end)]),
            UnsafeBufferPointer(
                rebasing: descriptors[(LocalFeatures.descriptorBytes * start)..<(LocalFeatures.descriptorBytes * end)])
        )
    }

    /// The keypoints of `doc` as values (a merge carries them into the merged segment).
    func localFeatures(of doc: Int) -> LocalFeatures? {
        guard keypointCount(of: doc) > 0 else { return nil }
        let (positions, descriptors) = features(of: doc)
        return LocalFeatures(positions: Array(positions), descriptors: Array(descriptors))
    }

    /// Collects documents' features in document order, then writes the table.
    struct Builder {
        private var starts: [UInt32] = [0]
        private var positions: [Float] = []
        private var descriptors: [UInt8] = []

        /// Adds the next document's features (`nil`: none).
        mutating func add(_ features: LocalFeatures?) {
            if let features {
                positions += features.positions
                descriptors += features.descriptors
            }
            starts.append(UInt32(positions.count / 2))
        }

        /// The table's bytes, checksummed.
        func finish() -> ByteRegion {
            let count = starts.count - 1
            let startsEnd = LocalFeatureTable.headerSize + 4 * starts.count
            let positionsAt = SegmentFormat.aligned(startsEnd)
            let descriptorsAt = SegmentFormat.aligned(positionsAt + 4 * positions.count)
            return ByteRegion.build(count: descriptorsAt + descriptors.count) { out in
                out.copyBytes(from: LocalFeatureTable.magic)
                out.storeBytes(of: UInt32(count).littleEndian, toByteOffset: 8, as: UInt32.self)
                starts.withUnsafeBytes {
                    out.baseAddress!.advanced(by: LocalFeatureTable.headerSize).copyMemory(
                        from: $0.baseAddress!, byteCount: $0.count)
                }
                positions.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress else { return }
                    out.baseAddress!.advanced(by: positionsAt).copyMemory(from: source, byteCount: bytes.count)
                }
                descriptors.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress else { return }
                    out.baseAddress!.advanced(by: descriptorsAt).copyMemory(from: source, byteCount: bytes.count)
                }
                let checksum = SegmentFormat.checksum(
                    UnsafeRawBufferPointer(rebasing: out[LocalFeatureTable.headerSize...]))
                out.storeBytes(
                    of: checksum.littleEndian, toByteOffset: SegmentFormat.checksumOffset, as: UInt32.self)
            }
        }
    }
}
