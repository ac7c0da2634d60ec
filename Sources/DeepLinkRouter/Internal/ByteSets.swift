/// Byte classes of the WHATWG URL Standard, as bit sets over ASCII.
///
/// Every byte at or above 0x7F belongs to all percent-encode sets, so only ASCII needs a table.
struct ByteSet: Sendable {
    var low: UInt64
    var high: UInt64

    init(_ bytes: [UInt8] = [], ranges: [ClosedRange<UInt8>] = []) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for byte in bytes + ranges.flatMap({ Array($0) }) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }
        self.low = low
        self.high = high
    }

    func union(_ other: ByteSet) -> ByteSet {
        var copy = self
        copy.low |= other.low
        copy.high |= other.high
        return copy
    }

    /// Whether `byte` is in the set; bytes at or above 0x80 are never ASCII members.
    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
        if byte < 128 { return high & (1 << UInt64(byte &- 64)) != 0 }
        return false
    }

    /// Whether `byte` must be percent-encoded: in the set, or not ASCII, or DEL.
    @inline(__always)
    func encodes(_ byte: UInt8) -> Bool {
        byte >= 0x7F || contains(byte)
    }
}

enum ByteSets {
    /// C0 controls; bytes above U+007E are added by `encodes`.
    static let c0Control = ByteSet(ranges: [0x00...0x1F])
    static let fragment = c0Control.union(ByteSet([0x20, 0x22, 0x3C, 0x3E, 0x60]))
    static let query = c0Control.union(ByteSet([0x20, 0x22, 0x23, 0x3C, 0x3E]))
    static let specialQuery = query.union(ByteSet([0x27]))
    static let path = query.union(ByteSet([0x3F, 0x5E, 0x60, 0x7B, 0x7D]))
    static let userinfo = path.union(ByteSet([0x2F, 0x3A, 0x3B, 0x3D, 0x40, 0x7C], ranges: [0x5B...0x5E]))
    /// Forbidden host code points (opaque hosts).
    static let forbiddenHost = ByteSet(
        [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x23, 0x2F, 0x3A, 0x3C, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x7C])
    /// Forbidden domain code points (hosts of special URLs), DEL included.
    static let forbiddenDomain = forbiddenHost.union(ByteSet([0x25, 0x7F], ranges: [0x00...0x1F]))

    /// What reverse routing leaves unencoded in a path segment: RFC 3986 unreserved characters
    /// plus sub-delimiters, `:` and `@`, minus `+` (kept unambiguous for readers that treat it as
    /// a space).
    static let segmentKeep = ByteSet(
        [0x2D, 0x2E, 0x5F, 0x7E, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2C, 0x3B, 0x3D, 0x3A, 0x40],
        ranges: [0x30...0x39, 0x41...0x5A, 0x61...0x7A])
    /// The same for the first segment of an app URL, which the parser reads as the authority:
    /// `:` and `@` would start a port or end credentials there.
    static let authoritySegmentKeep = ByteSet(
        [0x2D, 0x2E, 0x5F, 0x7E, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2C, 0x3B, 0x3D],
        ranges: [0x30...0x39, 0x41...0x5A, 0x61...0x7A])
    /// What the application/x-www-form-urlencoded serializer leaves unencoded (space becomes `+`).
    static let formKeep = ByteSet([0x2A, 0x2D, 0x2E, 0x5F], ranges: [0x30...0x39, 0x41...0x5A, 0x61...0x7A])
}

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte &- 0x30
    case 0x41...0x46: return byte &- 0x41 &+ 10
    case 0x61...0x66: return byte &- 0x61 &+ 10
    default: return nil
    }
}

@inline(__always)
func isASCIIAlpha(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
}

@inline(__always)
func isASCIIDigit(_ byte: UInt8) -> Bool {
    byte >= 0x30 && byte <= 0x39
}

@inline(__always)
func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

/// Appends the percent-encoding of `bytes` to `output`, encoding what `keep` does not hold.
func percentEncode(
    _ bytes: some Sequence<UInt8>, keeping keep: ByteSet, spaceAsPlus: Bool = false, into output: inout [UInt8]
) {
    for byte in bytes {
        if byte < 0x80 && keep.contains(byte) {
            output.append(byte)
        } else if spaceAsPlus && byte == 0x20 {
            output.append(0x2B)
        } else {
            output.append(0x25)
            output.append(upperHexDigits[Int(byte >> 4)])
            output.append(upperHexDigits[Int(byte & 0xF)])
        }
    }
}

/// Checks that the bytes are valid UTF-8 without allocating.
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        let length: Int
        var minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
        default: return false
        }
        if index + length > count { return false }
        for offset in 1..<length {
            let next = bytes[index + offset]
            if next & 0xC0 != 0x80 { return false }
            scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        if scalar < minimum || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF) { return false }
        index += length
    }
    return true
}
