/// Base64 (RFC 4648) as the wire formats here use it: written in the standard or URL-safe
/// alphabet, padded or not; read in either alphabet, padded or not, since protobuf's JSON
/// parsers, gRPC-Web and Connect's GET requests each accept both.
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Six-bit values by byte, for both alphabets; 0xFF for bytes of neither.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in standard.enumerated() { table[Int(byte)] = UInt8(value) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Appends the base64 of `input` to `out`.
    public static func encode(
        _ input: some Collection<UInt8>, into out: inout [UInt8], urlSafe: Bool = false, padded: Bool = true
    ) {
        let alphabet = urlSafe ? Self.urlSafe : standard
        let bytes = Array(input)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    out.append(alphabet[Int(group >> (18 - 6 * position) & 63)])
                } else if padded {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
    }

    /// The base64 of `input` as text.
    public static func encode(_ input: some Collection<UInt8>, urlSafe: Bool = false, padded: Bool = true) -> String {
        var out = [UInt8]()
        encode(input, into: &out, urlSafe: urlSafe, padded: padded)
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of one base64 text (either alphabet, padding optional), or `nil` when it is not
    /// base64.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var body = Array(text)
        let count = body.count
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        guard body.count % 4 != 1, count - body.count <= 2 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(body.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for byte in body {
            let value = sextets[Int(byte)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
            }
        }
        return out
    }

    /// The bytes of one base64 text (see ``decode(_:)-(some Collection<UInt8>)``).
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    /// The bytes of texts written one after another, each padded on its own (a gRPC-Web text
    /// body is the concatenation of the base64 of each piece the client flushed), or `nil`.
    public static func decodeConcatenated(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out = [UInt8]()
        var piece = [UInt8]()
        for byte in text {
            piece.append(byte)
            // A piece ends at padding, or at a group of four after which no padding follows.
            if piece.count % 4 == 0 && byte == UInt8(ascii: "=") {
                guard let bytes = decode(piece) else { return nil }
                out += bytes
                piece.removeAll(keepingCapacity: true)
            }
        }
        guard let rest = decode(piece) else { return nil }
        return out + rest
    }
}
