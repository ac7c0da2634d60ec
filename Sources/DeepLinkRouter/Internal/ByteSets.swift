/// Byte classes of the WHATWG URL Standard, as bit sets over ASCII.
///
/// Every byte at or above 0x7F belongs to all percent-encode sets, so only ASCII needs a table.
struct ByteSet: Sendable {
    var low: UInt64
    var high: UInt64

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

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
        // Branch-free but for the range test: pick the half, then the bit.
        let half = byte < 64 ? low : high
        return byte < 128 && (half &>> UInt64(byte & 63)) & 1 != 0
    }

    /// Whether `byte` must be percent-encoded: in the set, or not ASCII, or DEL.
    @inline(__always)
    func encodes(_ byte: UInt8) -> Bool {
        byte >= 0x7F || contains(byte)
    }
}

enum ByteSets {
    // Bit masks of the sets below, computed from the Standard's lists (low: 0x00-0x3F,
    // high: 0x40-0x7F); literals so that the per-byte loops never touch a lazy global.
    /// C0 controls; bytes above U+007E are added by `encodes`.
    @inline(__always) static var c0Control: ByteSet { ByteSet(low: 0x00000000FFFFFFFF, high: 0x0000000000000000) }
    /// The fragment percent-encode set.
    @inline(__always) static var fragment: ByteSet { ByteSet(low: 0x50000005FFFFFFFF, high: 0x0000000100000000) }
    /// The query percent-encode set.
    @inline(__always) static var query: ByteSet { ByteSet(low: 0x5000000DFFFFFFFF, high: 0x0000000000000000) }
    /// The special-query percent-encode set.
    @inline(__always) static var specialQuery: ByteSet { ByteSet(low: 0x5000008DFFFFFFFF, high: 0x0000000000000000) }
    /// The path percent-encode set.
    @inline(__always) static var path: ByteSet { ByteSet(low: 0xD000000DFFFFFFFF, high: 0x2800000140000000) }
    /// The userinfo percent-encode set.
    @inline(__always) static var userinfo: ByteSet { ByteSet(low: 0xFC00800DFFFFFFFF, high: 0x3800000178000001) }
    /// Forbidden host code points (opaque hosts).
    @inline(__always) static var forbiddenHost: ByteSet { ByteSet(low: 0xD400800900002601, high: 0x1000000078000001) }
    /// Forbidden domain code points (hosts of special URLs), DEL included.
    @inline(__always) static var forbiddenDomain: ByteSet { ByteSet(low: 0xD4008029FFFFFFFF, high: 0x9000000078000001) }
    /// What reverse routing leaves unencoded in a path segment: RFC 3986 unreserved characters
    /// plus sub-delimiters, `:` and `@`, minus `+` (kept unambiguous for readers that treat it as
    /// a space).
    @inline(__always) static var segmentKeep: ByteSet { ByteSet(low: 0x2FFF77D200000000, high: 0x47FFFFFE87FFFFFF) }
    /// The same for the first segment of an app URL, which the parser reads as the authority:
    /// `:` and `@` would start a port or end credentials there.
    @inline(__always) static var authoritySegmentKeep: ByteSet {
        ByteSet(low: 0x2BFF77D200000000, high: 0x47FFFFFE87FFFFFE)
    }
    /// The bytes of a slug: ASCII letters, digits, `-` and `_`.
    @inline(__always) static var slug: ByteSet { ByteSet(low: 0x03FF200000000000, high: 0x07FFFFFE87FFFFFE) }
    /// What the application/x-www-form-urlencoded serializer leaves unencoded (space becomes `+`).
    @inline(__always) static var formKeep: ByteSet { ByteSet(low: 0x03FF640000000000, high: 0x07FFFFFE87FFFFFE) }
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

/// The upper-case hexadecimal digit of a nibble.
@inline(__always)
func upperHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 &+ nibble : 0x37 &+ nibble
}

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
            output.append(upperHexDigit(byte >> 4))
            output.append(upperHexDigit(byte & 0xF))
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
