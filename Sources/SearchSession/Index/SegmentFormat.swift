internal import CXXHash

/// The byte layout of an index segment, in memory and on disk alike.
///
/// A segment is a header and a list of sections; every section is a flat array of one fixed-width
/// little-endian scalar type, 16-byte aligned, so a reader uses it in place (a mapped file needs no
/// parse). The header is the magic `VISEG016`, the section count (UInt32) and the checksum (the
/// low 32 bits of XXH3-64) of every byte after the header's 16, then one 24-byte entry per
/// section: key (UInt32), element size (UInt32), byte offset (UInt64) and element count (UInt64).
///
/// The checksum is checked when a start maps a segment file written before: a file damaged on
/// disk (a flipped bit, a torn block) is refused, and the catalog is built again from its file and
/// log instead of answering from damaged postings or reading out of bounds. XXH3 because that
/// check reads the whole index at every start: it hashes about 19 GB/s here where zlib's CRC-32
/// does 4, a third of a second less for a 1.4 GB index of a million entities.
enum SegmentFormat {
    static let magic: [UInt8] = Array("VISEG016".utf8)
    static let headerSize = 16
    static let entrySize = 24
    /// Where the checksum sits in the header.
    static let checksumOffset = 12

    /// Rounds `n` up to the section alignment.
    static func aligned(_ n: Int) -> Int { (n + 15) & ~15 }

    /// The checksum of `bytes`: the low 32 bits of their XXH3-64.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: XXH3_64bits(bytes.baseAddress, bytes.count))
    }

    /// Checks a region's checksum (at ``checksumOffset``, over every byte after the header)
    /// against its bytes, read with `pread` for a mapped file (so the check leaves nothing
    /// resident; see ``ByteRegion/copy(from:count:to:)``).
    ///
    /// - Throws: ``SearchError/Code/storage`` when they differ.
    ///
    /// - Parameter what: What the region is, for the error (a ``LocalFeatureTable`` keeps its
    ///   checksum where a segment does).
    static func verifyChecksum(of region: ByteRegion, describing what: String = "index segment") throws(SearchError) {
        guard region.count >= headerSize else {
            throw SearchError(code: .storage, message: "too short for an \(what) of this version")
        }
        let stored = region.bytes(at: checksumOffset, count: 4).withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))
        }
        guard let state = XXH3_createState() else {
            throw SearchError(code: .storage, message: "cannot check the \(what): out of memory")
        }
        defer { XXH3_freeState(state) }
        XXH3_64bits_reset(state)
        var offset = headerSize
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        while offset < region.count {
            let count = min(chunk, region.count - offset)
            buffer.withUnsafeMutableBytes { out in
                region.copy(from: region.base + offset, count: count, to: out.baseAddress!)
                _ = XXH3_64bits_update(state, out.baseAddress, count)
            }
            offset += count
        }
        let computed = UInt32(truncatingIfNeeded: XXH3_64bits_digest(state))
        guard computed == stored else {
            throw SearchError(
                code: .storage, message: "\(what) is damaged (checksum \(computed) where \(stored) was written)")
        }
    }
}

/// Names one section of a segment.
struct SectionKey: Hashable, Sendable, Comparable {
    let rawValue: UInt32

    static func < (a: SectionKey, b: SectionKey) -> Bool { a.rawValue < b.rawValue }

    // Strings of single documents (string ids), and names shared by many (name ids); id 0 of
    // each is "".
    static let stringBytes = SectionKey(rawValue: 1)
    static let stringOffsets = SectionKey(rawValue: 2)
    static let nameBytes = SectionKey(rawValue: 3)
    static let nameOffsets = SectionKey(rawValue: 4)

    // Per document (string ids unless said otherwise; tags are name ids).
    static let docType = SectionKey(rawValue: 10)  // type number
    static let docID = SectionKey(rawValue: 11)
    static let docTitle = SectionKey(rawValue: 12)
    static let docSubtitle = SectionKey(rawValue: 13)
    static let docImage = SectionKey(rawValue: 14)
    static let docThumbnail = SectionKey(rawValue: 15)
    static let docLink = SectionKey(rawValue: 16)
    static let docCategory = SectionKey(rawValue: 17)  // category number, or .max
    static let docTitleSortKey = SectionKey(rawValue: 18)
    // UInt32: the document's place among the segment's title sort keys (equal keys, equal
    // places), so a title sort compares numbers within a segment and reads no strings.
    static let docTitleRank = SectionKey(rawValue: 19)
    static let docTagStart = SectionKey(rawValue: 20)
    static let tags = SectionKey(rawValue: 21)
    static let docAttributeStart = SectionKey(rawValue: 22)
    // Per attribute pair: its value id (see valueStrings and numberValues), which names the
    // attribute too, as a PackedColumn: its bytes, and its width and count (two UInt32).
    static let pairValueBits = SectionKey(rawValue: 25)
    static let pairValueShape = SectionKey(rawValue: 23)
    static let docLocalizedStart = SectionKey(rawValue: 26)
    static let localizedLocale = SectionKey(rawValue: 27)  // name id
    static let localizedTitle = SectionKey(rawValue: 28)
    static let localizedSubtitle = SectionKey(rawValue: 29)
    static let docRelatedStart = SectionKey(rawValue: 30)
    static let relatedType = SectionKey(rawValue: 31)  // name id
    static let relatedID = SectionKey(rawValue: 32)

    // Dictionaries (name ids).
    static let typeNames = SectionKey(rawValue: 40)
    static let categoryNames = SectionKey(rawValue: 41)
    static let categoryParent = SectionKey(rawValue: 42)  // category number, or .max
    static let attributeNames = SectionKey(rawValue: 43)
    static let attributeKinds = SectionKey(rawValue: 44)  // UInt8: 1 has numbers, 2 has strings, 4 all integral
    static let attributeMinimum = SectionKey(rawValue: 45)  // Float64
    static let attributeMaximum = SectionKey(rawValue: 46)  // Float64
    // String values are numbered attribute by attribute (since VISEG016), in the order met within one.
    static let valueStrings = SectionKey(rawValue: 47)  // string value number → string id
    static let valueAttribute = SectionKey(rawValue: 48)  // string value number → attribute number
    // Value ids from valueStrings.count on are numbers: Float64, ascending within each attribute,
    // attributes in number order.
    static let numberValues = SectionKey(rawValue: 49)
    static let numberAttribute = SectionKey(rawValue: 50)  // attribute number

    // Text: terms, postings in document order with saturated BM25F-normalised frequencies, exact
    // phrases.
    static let termStrings = SectionKey(rawValue: 60)
    static let termTable = SectionKey(rawValue: 61)  // open addressing: term number + 1, 0 empty
    // Per term (and one past the last): where its postings start, for their count and
    // frequencies.
    static let postingStart = SectionKey(rawValue: 62)
    // Per term (and one past the last): where its documents start in postingGaps (a byte
    // offset); a common term's list is bits instead (denseTerms), and takes none there.
    static let postingDocStart = SectionKey(rawValue: 69)
    static let postingGaps = SectionKey(rawValue: 76)  // UInt8: DocumentGaps, then its padding
    // The terms whose lists are bits (DenseBits), ascending, and their bits and ranks: the
    // segment's word count (64 documents a word) each, in that order.
    static let denseTerms = SectionKey(rawValue: 72)
    static let denseWords = SectionKey(rawValue: 73)  // UInt64
    static let denseRanks = SectionKey(rawValue: 74)
    // UInt8 per posting: its frequency's place in frequencyValues (see PostingFrequencies).
    static let postingFrequencyCodes = SectionKey(rawValue: 64)
    static let frequencyValues = SectionKey(rawValue: 68)  // Float32, a power of two of them
    static let phraseHashes = SectionKey(rawValue: 65)  // UInt64, ascending
    static let phraseStart = SectionKey(rawValue: 66)  // byte offsets into phraseGaps
    static let phraseGaps = SectionKey(rawValue: 75)  // UInt8: DocumentGaps, then its padding
    // The phrases (by place in phraseHashes) whose lists are bits, as denseTerms for terms.
    static let densePhrases = SectionKey(rawValue: 77)
    static let densePhraseWords = SectionKey(rawValue: 78)  // UInt64
    static let densePhraseRanks = SectionKey(rawValue: 79)

    // Entity references, for upserts, deletes and related entities.
    static let refHashes = SectionKey(rawValue: 70)  // UInt64, ascending
    static let refDocs = SectionKey(rawValue: 71)

    // Prints, per model m: its name and dimension, then its documents, unit rows, float16 rows
    // and the float16 error allowance (see VectorIndex).
    static let vectorModels = SectionKey(rawValue: 90)
    static let vectorDimensions = SectionKey(rawValue: 91)
    static let vectorAllowances = SectionKey(rawValue: 92)  // Float64
    static func vectorDocs(_ model: Int) -> SectionKey { SectionKey(rawValue: 1000 + UInt32(model) * 4) }
    static func vectorRows(_ model: Int) -> SectionKey { SectionKey(rawValue: 1001 + UInt32(model) * 4) }
    static func vectorHalfRows(_ model: Int) -> SectionKey { SectionKey(rawValue: 1002 + UInt32(model) * 4) }
}

/// Sections being written: each a byte array of one scalar type, assembled into a segment.
struct SectionWriter {
    private var sections: [(key: SectionKey, elementSize: Int, bytes: [UInt8])] = []

    mutating func add<T: FixedWidthInteger>(_ key: SectionKey, _ values: [T]) {
        let bytes = values.withUnsafeBytes { Array($0) }
        sections.append((key, MemoryLayout<T>.size, bytes))
    }

    mutating func add(_ key: SectionKey, _ values: [Float]) {
        sections.append((key, 4, values.withUnsafeBytes { Array($0) }))
    }

    mutating func add(_ key: SectionKey, _ values: [Double]) {
        sections.append((key, 8, values.withUnsafeBytes { Array($0) }))
    }

    /// Lays the header and sections out in one region.
    func assemble() -> ByteRegion {
        var offset = SegmentFormat.aligned(SegmentFormat.headerSize + SegmentFormat.entrySize * sections.count)
        var offsets = [Int]()
        for section in sections {
            offsets.append(offset)
            offset = SegmentFormat.aligned(offset + section.bytes.count)
        }
        return ByteRegion.build(count: offset) { out in
            out.copyBytes(from: SegmentFormat.magic)
            out.storeBytes(of: UInt32(sections.count).littleEndian, toByteOffset: 8, as: UInt32.self)
            for (i, section) in sections.enumerated() {
                let entry = SegmentFormat.headerSize + i * SegmentFormat.entrySize
                out.storeBytes(of: section.key.rawValue.littleEndian, toByteOffset: entry, as: UInt32.self)
                out.storeBytes(of: UInt32(section.elementSize).littleEndian, toByteOffset: entry + 4, as: UInt32.self)
                out.storeBytes(of: UInt64(offsets[i]).littleEndian, toByteOffset: entry + 8, as: UInt64.self)
                out.storeBytes(
                    of: UInt64(section.bytes.count / section.elementSize).littleEndian, toByteOffset: entry + 16,
                    as: UInt64.self)
                UnsafeMutableRawBufferPointer(rebasing: out[offsets[i]..<(offsets[i] + section.bytes.count)])
                    .copyBytes(from: section.bytes)
            }
            let checksum = SegmentFormat.checksum(UnsafeRawBufferPointer(rebasing: out[SegmentFormat.headerSize...]))
            out.storeBytes(of: checksum.littleEndian, toByteOffset: SegmentFormat.checksumOffset, as: UInt32.self)
        }
    }
}

/// The sections of a segment region, found from its header.
struct SectionTable {
    private var entries: [SectionKey: (elementSize: Int, offset: Int, count: Int)] = [:]
    let region: ByteRegion

    /// Reads the header.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the region is not a segment of this format or a
    ///   section lies outside it (a truncated or foreign file).
    init(_ region: ByteRegion) throws(SearchError) {
        self.region = region
        guard region.count >= SegmentFormat.headerSize else {
            throw SearchError(code: .storage, message: "not an index segment of this version")
        }
        // The header is copied out (with `pread` from a mapped file): read through the mapping,
        // it would keep the 2 MiB folio around it (display strings no search reads that way)
        // resident for the segment's life.
        let head = region.bytes(at: 0, count: SegmentFormat.headerSize)
        guard Array(head[0..<8]) == SegmentFormat.magic else {
            throw SearchError(code: .storage, message: "not an index segment of this version")
        }
        let count = Int(Self.field(head, at: 8, as: UInt32.self))
        guard SegmentFormat.headerSize + count * SegmentFormat.entrySize <= region.count else {
            throw SearchError(code: .storage, message: "index segment header is truncated")
        }
        let table = region.bytes(at: SegmentFormat.headerSize, count: count * SegmentFormat.entrySize)
        for i in 0..<count {
            let entry = i * SegmentFormat.entrySize
            let key = SectionKey(rawValue: Self.field(table, at: entry, as: UInt32.self))
            let size = Int(Self.field(table, at: entry + 4, as: UInt32.self))
            let offset = Int(Self.field(table, at: entry + 8, as: UInt64.self))
            let elements = Int(Self.field(table, at: entry + 16, as: UInt64.self))
            guard size > 0, offset % 16 == 0, elements >= 0, offset <= region.count,
                elements <= (region.count - offset) / size
            else {
                throw SearchError(code: .storage, message: "index segment section \(key.rawValue) is out of bounds")
            }
            entries[key] = (size, offset, elements)
        }
    }

    /// The little-endian integer at `offset` of `bytes`.
    private static func field<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as type: T.Type) -> T {
        T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) })
    }

    /// A section as a typed buffer; an absent section is empty.
    func array<T>(_ key: SectionKey, of type: T.Type = T.self) -> UnsafeBufferPointer<T> {
        guard let entry = entries[key], entry.elementSize == MemoryLayout<T>.size else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(
            start: (region.base + entry.offset).assumingMemoryBound(to: T.self), count: entry.count)
    }
}
