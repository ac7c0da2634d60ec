/// A column of unsigned numbers stored at the bit width its largest needs, end to end
/// (little-endian, the first number in the lowest bits), and read in place.
///
/// For the attribute pairs' value ids: a catalog of 100k entities with many attributes has 1.5 to
/// 1.8 million pairs and a few hundred thousand values, 19 bits each where 32 were stored (6.7 MiB
/// of the sparse catalog's segment, 4.0 packed). A read is one unaligned 64-bit load, a shift and
/// a mask; the section ends with ``padding`` bytes, so that load never passes its end.
struct PackedColumn {
    /// Zero bytes after the last number's, for the load that reads it.
    static let padding = 8

    private let bytes: UnsafeRawPointer?
    let width: Int
    let count: Int
    private let mask: UInt64

    /// The column in `bytes`, `count` numbers of `width` bits; `nil` when the bytes are too few
    /// (or the width past 32).
    init?(bytes: UnsafeBufferPointer<UInt8>, width: Int, count: Int) {
        guard (0...32).contains(width), count >= 0,
            bytes.count >= Self.byteCount(width: width, count: count)
        else { return nil }
        self.bytes = bytes.baseAddress.map(UnsafeRawPointer.init)
        self.width = width
        self.count = count
        mask = width == 0 ? 0 : (UInt64(1) << UInt64(width)) - 1
    }

    /// The bytes `count` numbers of `width` bits take, padding included.
    static func byteCount(width: Int, count: Int) -> Int { (width * count + 7) / 8 + padding }

    @inline(__always) subscript(position: Int) -> UInt32 {
        let bit = position &* width
        let word = UInt64(
            littleEndian: bytes.unsafelyUnwrapped.loadUnaligned(fromByteOffset: bit &>> 3, as: UInt64.self))
        return UInt32(truncatingIfNeeded: (word &>> UInt64(bit & 7)) & mask)
    }

    var indices: Range<Int> { 0..<count }

    /// The first byte of the column (`nil` when it has none), for loops in C that read it as
    /// the subscript does.
    var baseAddress: UnsafeRawPointer? { bytes }

    /// `values` packed at the width the largest needs, and that width.
    static func pack(_ values: [UInt32]) -> (width: Int, bytes: [UInt8]) {
        let width = UInt32.bitWidth - (values.max() ?? 0).leadingZeroBitCount
        var bytes = [UInt8](repeating: 0, count: byteCount(width: width, count: values.count))
        guard width > 0 else { return (0, bytes) }
        for (position, value) in values.enumerated() {
            let bit = position * width
            // At most 32 bits from a byte boundary plus 7: within the 5 bytes from bit / 8.
            let shifted = UInt64(value) << UInt64(bit & 7)
            for byte in 0..<5 { bytes[bit / 8 + byte] |= UInt8(truncatingIfNeeded: shifted >> UInt64(byte * 8)) }
        }
        return (width, bytes)
    }
}
