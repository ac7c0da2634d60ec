/// A small JSON reader for route tables: objects keep their key order, numbers are doubles.
enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    struct ParseError: Error {
        var offset: Int
        var message: String
    }

    static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        if reader.index != bytes.count { throw ParseError(offset: reader.index, message: "trailing characters") }
        return value
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ message: String) -> ParseError { ParseError(offset: index, message: message) }

        mutating func expect(_ literal: String, _ value: JSON) throws(ParseError) -> JSON {
            let utf8 = Array(literal.utf8)
            guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
                throw fail("unexpected character")
            }
            index += utf8.count
            return value
        }

        mutating func value(depth: Int) throws(ParseError) -> JSON {
            guard depth < 64 else { throw fail("nesting too deep") }
            guard index < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[index] {
            case 0x7B:
                index += 1
                var members: [(String, JSON)] = []
                skipSpace()
                if index < bytes.count && bytes[index] == 0x7D {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count && bytes[index] == 0x22 else { throw fail("expected a string key") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count && bytes[index] == 0x3A else { throw fail("expected ':'") }
                    index += 1
                    skipSpace()
                    if members.contains(where: { $0.0 == key }) { throw fail("duplicate key \"\(key)\"") }
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unexpected end of input") }
                    if bytes[index] == 0x2C {
                        index += 1
                        continue
                    }
                    guard bytes[index] == 0x7D else { throw fail("expected ',' or '}'") }
                    index += 1
                    return .object(members)
                }
            case 0x5B:
                index += 1
                var elements: [JSON] = []
                skipSpace()
                if index < bytes.count && bytes[index] == 0x5D {
                    index += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unexpected end of input") }
                    if bytes[index] == 0x2C {
                        index += 1
                        continue
                    }
                    guard bytes[index] == 0x5D else { throw fail("expected ',' or ']'") }
                    index += 1
                    return .array(elements)
                }
            case 0x22: return .string(try string())
            case 0x74: return try expect("true", .bool(true))
            case 0x66: return try expect("false", .bool(false))
            case 0x6E: return try expect("null", .null)
            default: return try number()
            }
        }

        mutating func number() throws(ParseError) -> JSON {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                index = start
                throw fail("unexpected character")
            }
            return .number(value)
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = hexValue(bytes[index]) else { throw fail("invalid \\u escape") }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                if !run.isEmpty {
                    scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                    run.removeAll(keepingCapacity: true)
                }
            }
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[index]
                if byte == 0x22 {
                    index += 1
                    flush()
                    return String(scalars)
                }
                if byte < 0x20 { throw fail("control character in string") }
                if byte != 0x5C {
                    run.append(byte)
                    index += 1
                    continue
                }
                flush()
                index += 1
                guard index < bytes.count else { throw fail("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x22: scalars.append("\"")
                case 0x5C: scalars.append("\\")
                case 0x2F: scalars.append("/")
                case 0x62: scalars.append("\u{8}")
                case 0x66: scalars.append("\u{C}")
                case 0x6E: scalars.append("\n")
                case 0x72: scalars.append("\r")
                case 0x74: scalars.append("\t")
                case 0x75:
                    var code = try hex4()
                    if code >= 0xD800 && code < 0xDC00 {
                        guard index + 2 <= bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("unpaired surrogate") }
                    scalars.append(scalar)
                default: throw fail("invalid escape")
                }
            }
        }
    }
}
