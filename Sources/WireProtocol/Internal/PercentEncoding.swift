/// Percent-encoding of `grpc-message`, as PROTOCOL-HTTP2.md specifies.
enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Encodes the UTF-8 of a message: bytes outside 0x20–0x7E, and `%`, become `%XX`.
    static func encode(_ message: String) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(message.utf8.count)
        for byte in message.utf8 {
            if byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "%") {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            } else {
                out.append(byte)
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
