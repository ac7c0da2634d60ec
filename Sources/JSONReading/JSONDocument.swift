/// A parsed JSON text (RFC 8259), read strictly: the one JSON reader of the project's libraries
/// (the route table and the catalog lines), so both refuse the same malformed input with the
/// same words.
///
/// Strict means: no trailing commas, no leading zeros, finite numbers only, valid UTF-8, paired
/// surrogates, no repeated object keys, and nesting at most 64 deep. Object members keep their
/// order (a route table's order matters to people reading errors).
public enum JSONDocument: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONDocument])
    case object([(key: String, value: JSONDocument)])

    /// Where and why a text is not JSON.
    public struct ParseError: Error, Hashable, Sendable {
        /// The byte offset (0-based) the reader stopped at.
        public var offset: Int
        /// What was wrong there.
        public var message: String
    }

    /// Parses one JSON text from bytes.
    ///
    /// - Throws: ``ParseError`` naming the byte where the text stops being JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JSONDocument {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(ParseError) in
            var parser = JSONParser(bytes: buffer)
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            if parser.i != buffer.count { throw parser.fail("unexpected text after the value") }
            return value
        }
    }

    /// A member of an object by key; `nil` for other values or a missing key.
    public subscript(key: String) -> JSONDocument? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    /// An object's keys in order; empty for other values.
    public var keys: [String] {
        if case .object(let members) = self { return members.map(\.key) }
        return []
    }

    /// What kind of value this is, as an error message names it ("an object").
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public static func == (a: JSONDocument, b: JSONDocument) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.elementsEqual(y) { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let x): hasher.combine(x)
        case .number(let x): hasher.combine(x)
        case .string(let x): hasher.combine(x)
        case .array(let x): hasher.combine(x)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }
}

/// The reader behind ``JSONDocument/parse(_:)``: an index over the bytes, one method per rule.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func fail(_ message: String) -> JSONDocument.ParseError { JSONDocument.ParseError(offset: i, message: message) }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    mutating func literal(_ word: StaticString, _ v: JSONDocument) throws(JSONDocument.ParseError) -> JSONDocument {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw fail("unexpected end of input") }
        let ok = word.withUTF8Buffer { w in (0..<n).allSatisfy { bytes[i + $0] == w[$0] } }
        guard ok else { throw fail("unexpected character") }
        i += n
        return v
    }

    mutating func value(depth: Int) throws(JSONDocument.ParseError) -> JSONDocument {
        guard depth < 64 else { throw fail("nested deeper than 64") }
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members = [(key: String, value: JSONDocument)]()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipSpace()
                // RFC 8259 leaves repeated names to the reader: a repeat is refused, so no value
                // silently hides another.
                if members.contains(where: { $0.key == key }) { throw fail("duplicate key \"\(key)\"") }
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            i += 1
            var array = [JSONDocument]()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(array)
            }
            while true {
                skipSpace()
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(array)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    mutating func number() throws(JSONDocument.ParseError) -> Double {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        let firstDigit = i
        while i < bytes.count, (48...57).contains(bytes[i]) {
            i += 1
            digits += 1
        }
        guard digits > 0 else {
            i = start
            throw fail("unexpected character")
        }
        if digits > 1 && bytes[firstDigit] == UInt8(ascii: "0") { throw fail("a number must not start with 0") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var fraction = 0
            while i < bytes.count, (48...57).contains(bytes[i]) {
                i += 1
                fraction += 1
            }
            if fraction == 0 { throw fail("a number needs digits after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exponent = 0
            while i < bytes.count, (48...57).contains(bytes[i]) {
                i += 1
                exponent += 1
            }
            if exponent == 0 { throw fail("a number needs exponent digits") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let v = Double(text), v.isFinite else { throw fail("number out of range") }
        return v
    }

    mutating func string() throws(JSONDocument.ParseError) -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes.
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 {
            i += 1
        }
        guard i < bytes.count else { throw fail("unterminated string") }
        if bytes[i] == UInt8(ascii: "\"") {
            let s = try validated(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            i += 1
            return s
        }
        var out = Array(bytes[start..<i])
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return try out.withUnsafeBufferPointer { buffer throws(JSONDocument.ParseError) in try validated(buffer)
                }
            }
            if b < 0x20 { throw fail("control character in a string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { throw fail("unterminated string") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw fail("invalid escape")
            }
        }
    }

    mutating func hex4() throws(JSONDocument.ParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 48...57: d = UInt32(b - 48)
            case 65...70: d = UInt32(b - 55)
            case 97...102: d = UInt32(b - 87)
            default: throw fail("invalid \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    func validated(_ utf8: UnsafeBufferPointer<UInt8>) throws(JSONDocument.ParseError) -> String {
        guard let s = String(validating: utf8, as: UTF8.self) else { throw fail("invalid UTF-8") }
        return s
    }
}
