/// The schemes the WHATWG URL Standard treats specially.
enum SpecialScheme: UInt8, Sendable {
    case ftp, file, http, https, ws, wss

    var defaultPort: Int {
        switch self {
        case .ftp: 21
        case .file: -1
        case .http, .ws: 80
        case .https, .wss: 443
        }
    }
}

/// Where each component of a parsed URL sits inside its serialization (the href bytes).
///
/// Offsets are byte indices into the serialized URL; `-1` marks an absent query, fragment or port.
struct URLLayout: Sendable, Hashable {
    /// `href[0..<schemeEnd]` is the lower-cased scheme; `href[schemeEnd]` is `:`.
    var schemeEnd = 0
    var special: SpecialScheme? = nil
    /// Whether the URL has a host (possibly empty), and so `//` after the scheme.
    var hasHost = false
    var usernameStart = 0
    var usernameEnd = 0
    var passwordStart = 0
    var passwordEnd = 0
    var hostStart = 0
    var hostEnd = 0
    var port = -1
    var pathStart = 0
    var pathEnd = 0
    var opaquePath = false
    /// First byte after `?`, or -1.
    var queryStart = -1
    var queryEnd = 0
    /// First byte after `#`, or -1.
    var fragmentStart = -1
    var end = 0
    /// Whether the host or the path holds a `%` (so routing must percent-decode).
    var hostOrPathHasPercent = false

    var hasCredentials: Bool { usernameEnd > usernameStart || passwordEnd > passwordStart }
}

/// A bounded byte writer over caller-provided memory; capacity is sized so it never overflows.
struct ByteWriter {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func appendEncoded(_ byte: UInt8, _ set: ByteSet) {
        if set.encodes(byte) {
            base[count] = 0x25
            base[count + 1] = upperHexDigit(byte >> 4)
            base[count + 2] = upperHexDigit(byte & 0xF)
            count += 3
        } else {
            base[count] = byte
            count += 1
        }
    }

    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        for byte in bytes { append(byte) }
    }

    mutating func appendDecimal(_ value: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
        var value = value
        var length = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[length] = UInt8(value % 10) + 0x30
                value /= 10
                length += 1
            } while value > 0
            while length > 0 {
                length -= 1
                append(raw[length])
            }
        }
    }
}
