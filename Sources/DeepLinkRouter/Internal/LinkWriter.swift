/// A route's canonical URL with holes for its path parameters, percent-encoded once when the
/// table loads so that reverse routing only copies bytes and encodes values.
final class LinkTemplate: Sendable {
    /// The fixed text: the prefix (`music://` or `https://host/`), literal segments and slashes.
    let text: [UInt8]
    /// Where in `text` each path parameter's value goes, in slot order.
    let holes: [Int]
    /// Whether the first hole opens an app URL, where the parser reads the first segment as the
    /// authority: `:` and `@` must be encoded there.
    let firstHoleIsAuthority: Bool

    init(segments: [PatternSegment], scheme: String?, host: String?) {
        var text: [UInt8] = []
        if let scheme {
            text.append(contentsOf: scheme.utf8)
            text.append(contentsOf: "://".utf8)
        } else {
            text.append(contentsOf: "https://".utf8)
            text.append(contentsOf: (host ?? "example.com").utf8)
            text.append(0x2F)
        }
        var holes: [Int] = []
        var firstHoleIsAuthority = false
        for (position, segment) in segments.enumerated() {
            if position > 0 { text.append(0x2F) }
            switch segment {
            case .literal(let literal):
                let keep = position == 0 && scheme != nil ? ByteSets.authoritySegmentKeep : ByteSets.segmentKeep
                percentEncode(literal.utf8, keeping: keep, into: &text)
            case .parameter:
                if position == 0 && scheme != nil { firstHoleIsAuthority = true }
                holes.append(text.count)
            }
        }
        self.text = text
        self.holes = holes
        self.firstHoleIsAuthority = firstHoleIsAuthority
    }
}

/// Writes canonical URLs straight into the storage of the resulting `String`: one pass to
/// measure, one to write, one allocation.
enum LinkWriter {
    /// The URL of `template` with validated values (see `Link.validate`).
    static func url(_ template: LinkTemplate, info: RouteInfo, value: (Int) -> String?) -> String {
        let length = measure(template, info: info, value: value)
        return String(unsafeUninitializedCapacity: length) { buffer in
            write(template, info: info, value: value, into: buffer.baseAddress!)
        }
    }

    /// The exact length of the URL in bytes.
    static func measure(_ template: LinkTemplate, info: RouteInfo, value: (Int) -> String?) -> Int {
        var length = template.text.count
        for slot in 0..<template.holes.count {
            let kind = info.pathKinds[slot]
            let text = value(slot) ?? ""
            if kind.isPlainToken {
                length += text.utf8.count
                continue
            }
            let authority = slot == 0 && template.firstHoleIsAuthority
            withUTF8Bytes(text) { bytes in
                length += encodedLength(bytes, authority: authority, catchAll: kind == .catchAll)
            }
        }
        for position in 0..<info.query.count {
            guard let text = value(info.pathParameterCount + position), text != info.query[position].defaultValue
            else { continue }
            length += 2 + formEncodedLength(info.query[position].name) + formEncodedLength(text)
        }
        return length
    }

    /// Writes the URL at `output`; returns its length.
    static func write(
        _ template: LinkTemplate, info: RouteInfo, value: (Int) -> String?, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var count = 0
        template.text.withUnsafeBufferPointer { text in
            var copied = 0
            for slot in 0..<template.holes.count {
                let hole = template.holes[slot]
                (output + count).update(from: text.baseAddress! + copied, count: hole - copied)
                count += hole - copied
                copied = hole
                let kind = info.pathKinds[slot]
                let authority = slot == 0 && template.firstHoleIsAuthority
                withUTF8Bytes(value(slot) ?? "") { bytes in
                    if kind.isPlainToken {
                        // Validated: letters, digits, '-' and '_' only, which every keep set holds.
                        if let base = bytes.baseAddress { (output + count).update(from: base, count: bytes.count) }
                        count += bytes.count
                    } else {
                        count += encodeSegment(
                            bytes, authority: authority, catchAll: kind == .catchAll, into: output + count)
                    }
                }
            }
            (output + count).update(from: text.baseAddress! + copied, count: text.count - copied)
            count += text.count - copied
        }
        var separator: UInt8 = 0x3F
        for position in 0..<info.query.count {
            guard let text = value(info.pathParameterCount + position), text != info.query[position].defaultValue
            else { continue }
            output[count] = separator
            separator = 0x26
            count += 1
            count += withUTF8Bytes(info.query[position].name) { formEncode($0, into: output + count) }
            output[count] = 0x3D
            count += 1
            count += withUTF8Bytes(text) { formEncode($0, into: output + count) }
        }
        return count
    }

    /// The keep set of a byte of a path value: a catch-all's `/` stays a separator, and only the
    /// first segment of an app URL (the authority) encodes `:` and `@`.
    @inline(__always)
    static func keeps(_ byte: UInt8, inAuthority: Bool) -> Bool {
        inAuthority ? ByteSets.authoritySegmentKeep.contains(byte) : ByteSets.segmentKeep.contains(byte)
    }

    static func encodedLength(_ bytes: UnsafeBufferPointer<UInt8>, authority: Bool, catchAll: Bool) -> Int {
        var length = 0
        var inAuthority = authority
        for byte in bytes {
            if catchAll && byte == 0x2F {
                inAuthority = false
                length += 1
            } else {
                length += keeps(byte, inAuthority: inAuthority) ? 1 : 3
            }
        }
        return length
    }

    static func encodeSegment(
        _ bytes: UnsafeBufferPointer<UInt8>, authority: Bool, catchAll: Bool, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var count = 0
        var inAuthority = authority
        for byte in bytes {
            if catchAll && byte == 0x2F {
                inAuthority = false
                output[count] = byte
                count += 1
            } else if keeps(byte, inAuthority: inAuthority) {
                output[count] = byte
                count += 1
            } else {
                count += writeEscape(byte, into: output + count)
            }
        }
        return count
    }

    /// Writes `byte` as `%XY` (upper-case hex, as WHATWG serializers do) and returns 3.
    @inline(__always)
    static func writeEscape(_ byte: UInt8, into output: UnsafeMutablePointer<UInt8>) -> Int {
        output[0] = 0x25
        output[1] = upperHexDigit(byte >> 4)
        output[2] = upperHexDigit(byte & 0xF)
        return 3
    }

    static func formEncodedLength(_ string: String) -> Int {
        withUTF8Bytes(string) { bytes in
            var length = 0
            for byte in bytes { length += ByteSets.formKeep.contains(byte) || byte == 0x20 ? 1 : 3 }
            return length
        }
    }

    /// application/x-www-form-urlencoded: a space becomes `+`.
    static func formEncode(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 0
        for byte in bytes {
            if ByteSets.formKeep.contains(byte) {
                output[count] = byte
                count += 1
            } else if byte == 0x20 {
                output[count] = 0x2B
                count += 1
            } else {
                count += writeEscape(byte, into: output + count)
            }
        }
        return count
    }
}
