/// Base64 of `bytes` fields: written standard and padded (as protobuf's printers do), read in
/// either alphabet, padded or not (as protobuf's parsers accept).
enum ProtoJSONBase64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Six-bit values by byte, for both alphabets; 0xFF for bytes of neither.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in standard.enumerated() { table[Int(byte)] = UInt8(value) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    static func encode(_ input: [UInt8], into out: inout [UInt8]) {
        var index = 0
        while index < input.count {
            let chunk = input[index..<min(index + 3, input.count)]
            var group: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                out.append(
                    position <= chunk.count ? standard[Int(group >> (18 - 6 * position) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
    }

    /// The bytes of base64 `text`, or `nil` when it is not base64.
    static func decode(_ text: String) -> [UInt8]? {
        var body = Array(text.utf8)
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        guard body.count % 4 != 1, text.utf8.count - body.count <= 2 else { return nil }
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
}
