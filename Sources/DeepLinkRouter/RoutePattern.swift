/// The type of a route parameter.
public enum ParameterKind: String, Hashable, Sendable, CaseIterable {
    /// Decimal digits (1 to 18 of them, so the value fits an `Int`).
    case int
    /// A UUID in its 8-4-4-4-12 hexadecimal form, either case.
    case uuid
    /// ASCII letters, digits, `-` and `_`; never empty.
    case slug
    /// One of a fixed list of values.
    case `enum`
    /// Any text, including the empty string.
    case string
    /// The rest of the path, `/` included; only as the last segment.
    case catchAll
}

extension ParameterKind {
    /// Whether every valid value is a plain token (ASCII letters, digits, `-`, `_`): nothing to
    /// percent-encode, no control characters, no dot segments.
    var isPlainToken: Bool {
        switch self {
        case .int, .uuid, .slug: true
        case .enum, .string, .catchAll: false
        }
    }
}

/// A parameter type: its kind and, for `.enum`, the allowed values.
struct ParameterType: Hashable, Sendable {
    var kind: ParameterKind
    var values: [String] = []

    /// Parses `int`, `uuid`, `slug`, `string`, `enum(a|b|c)`.
    init?(parsing text: Substring) {
        switch text {
        case "int": kind = .int
        case "uuid": kind = .uuid
        case "slug": kind = .slug
        case "string", "": kind = .string
        default:
            guard text.hasPrefix("enum("), text.hasSuffix(")") else { return nil }
            kind = .enum
            let list = text.dropFirst(5).dropLast()
            values = list.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            if values.isEmpty || values.contains("") || Set(values).count != values.count { return nil }
        }
    }

    init(kind: ParameterKind, values: [String] = []) {
        self.kind = kind
        self.values = values
    }

    var spelling: String {
        kind == .enum ? "enum(\(values.joined(separator: "|")))" : kind.rawValue
    }

    /// Whether decoded bytes are a value of this type.
    func accepts(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch kind {
        case .int:
            return bytes.count >= 1 && bytes.count <= 18 && bytes.allSatisfy(isASCIIDigit)
        case .uuid:
            guard bytes.count == 36 else { return false }
            for index in 0..<36 {
                let byte = bytes[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if byte != 0x2D { return false }
                } else if hexValue(byte) == nil {
                    return false
                }
            }
            return true
        case .slug:
            return !bytes.isEmpty
                && bytes.allSatisfy { ByteSets.slug.contains($0) }
        case .enum:
            for value in values where value.utf8.count == bytes.count {
                if withUTF8Bytes(value, { bytesEqual($0, bytes) }) { return true }
            }
            return false
        case .string, .catchAll:
            return true
        }
    }

    func accepts(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { accepts($0) }
    }

    /// Precedence class of a segment: static 0, typed 1, untyped 2, catch-all 3.
    var rankClass: UInt8 {
        switch kind {
        case .int, .uuid, .slug, .enum: 1
        case .string: 2
        case .catchAll: 3
        }
    }
}

/// One segment of a route pattern.
enum PatternSegment: Hashable, Sendable {
    case literal(String)
    case parameter(name: String, type: ParameterType)

    var rankClass: UInt8 {
        switch self {
        case .literal: 0
        case .parameter(_, let type): type.rankClass
        }
    }
}

/// Parses a pattern such as `/album/{id:slug}/{tab:enum(a|b)}/{*rest}`.
func parsePattern(_ pattern: String) -> Result<[PatternSegment], PatternError> {
    guard pattern.hasPrefix("/") else { return .failure("a pattern starts with '/'") }
    let pieces = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    var segments: [PatternSegment] = []
    var names: Set<String> = []
    for (position, piece) in pieces.enumerated() {
        if piece.hasPrefix("{") && piece.hasSuffix("}") && piece.count >= 2 {
            let body = piece.dropFirst().dropLast()
            let name: Substring
            let type: ParameterType
            if body.hasPrefix("*") {
                name = body.dropFirst()
                type = ParameterType(kind: .catchAll)
                if position != pieces.count - 1 { return .failure("a catch-all {*\(name)} must be the last segment") }
            } else if let colon = body.firstIndex(of: ":") {
                name = body[..<colon]
                guard let parsed = ParameterType(parsing: body[body.index(after: colon)...]) else {
                    return .failure("unknown parameter type \"\(body[body.index(after: colon)...])\"")
                }
                type = parsed
            } else {
                name = body
                type = ParameterType(kind: .string)
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                return .failure("invalid parameter name \"\(name)\"")
            }
            guard names.insert(String(name)).inserted else { return .failure("parameter \"\(name)\" appears twice") }
            segments.append(.parameter(name: String(name), type: type))
        } else {
            if piece.contains("{") || piece.contains("}") {
                return .failure("segment \"\(piece)\" mixes text and a parameter")
            }
            if piece == "." || piece == ".." { return .failure("dot segments are not allowed") }
            segments.append(.literal(String(piece)))
        }
    }
    return .success(segments)
}

/// Why a pattern cannot be parsed.
struct PatternError: Error, ExpressibleByStringInterpolation {
    var reason: String
    init(stringLiteral value: String) { reason = value }
}
