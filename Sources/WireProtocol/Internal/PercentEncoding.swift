/// Percent-encoding of `grpc-message`, as PROTOCOL-HTTP2.md specifies.
enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// The most bytes an encoded message takes before it is cut. A message travels in a trailer,
    /// which clients cap together with the rest of the header list (grpcio at 8 KiB), and it may
    /// quote what the client sent: an unknown service name of a megabyte came back whole.
    static let maxEncodedBytes = 4_096

    /// "…", encoded: what a cut message ends with.
    private static let ellipsis = Array("%E2%80%A6".utf8)

    /// Encodes the UTF-8 of a message: bytes outside 0x20–0x7E, and `%`, become `%XX`. Past
    /// ``maxEncodedBytes`` the message is cut before the scalar that crosses it, and "…" ends it.
    static func encode(_ message: String) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(min(message.utf8.count, maxEncodedBytes) + ellipsis.count)
        for scalar in message.unicodeScalars {
            let before = out.count
            UTF8.encode(scalar) { byte in
                if byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "%") {
                    out.append(UInt8(ascii: "%"))
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                } else {
                    out.append(byte)
                }
            }
            if out.count > maxEncodedBytes {
                out.removeSubrange(before...)
                out += ellipsis
                break
            }
        }
        return out
    }

    /// Decodes a received message, leaving malformed escapes as they are and repairing
    /// invalid UTF-8 rather than failing.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let byte = input[i]
            if byte == UInt8(ascii: "%"), i + 2 < input.count, let hi = hexValue(input[i + 1]),
                let lo = hexValue(input[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { decode($0) }
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
