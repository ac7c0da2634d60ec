/// Base64 for `-bin` metadata: emits unpadded, accepts padded and unpadded input.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes with the standard alphabet.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to encode.
    ///   - padded: Whether to append `=` padding.
    /// - Returns: The encoded text.
    static func encode(_ bytes: [UInt8], padded: Bool = false) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if padded { out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            if padded { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded or unpadded base64.
    ///
    /// - Returns: The bytes, or `nil` when the input is not base64.
    static func decode(_ text: String) -> [UInt8]? {
        var copy = text
        return copy.withUTF8 { decode($0) }
    }

    /// Decodes padded or unpadded base64 from raw bytes.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var end = input.count
        while end > 0 && input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        if input.count - end > 2 || end % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(end * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for i in 0..<end {
            let v = decodeTable[Int(input[i])]
            if v == 0xFF { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        return out
    }
}
