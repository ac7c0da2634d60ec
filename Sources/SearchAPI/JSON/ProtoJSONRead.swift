internal import Base64Coding
public import JSONReading

/// Reads the values of proto3 JSON fields, as protobuf's parsers accept them: integers as numbers
/// or strings, floats also as "NaN" and "Infinity", enums by name or number, bytes in either
/// base64 alphabet, and `null` for a field's default. Generated ``ProtoJSONMessage`` code calls
/// these; `path` is only built when a value is refused.
public enum ProtoJSONRead {
    /// The members of a message's JSON object.
    public static func members(
        _ value: JSONDocument, _ path: @autoclosure () -> String
    ) throws(ProtoJSONError) -> [(key: String, value: JSONDocument)] {
        guard case .object(let members) = value else { throw refused(value, "an object", path()) }
        return members
    }

    /// The elements of a repeated field's array (`null`: none), each read by `element`.
    public static func array<Element>(
        _ value: JSONDocument, _ path: @autoclosure () -> String,
        _ element: (JSONDocument, _ path: () -> String) throws(ProtoJSONError) -> Element
    ) throws(ProtoJSONError) -> [Element] {
        if case .null = value { return [] }
        guard case .array(let items) = value else { throw refused(value, "an array", path()) }
        let arrayPath = path()
        var out = [Element]()
        out.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if case .null = item { throw ProtoJSONError(path: "\(arrayPath)[\(index)]", message: "null in an array") }
            out.append(try element(item, { "\(arrayPath)[\(index)]" }))
        }
        return out
    }

    /// A message field's value (`null`: not set).
    public static func message<Message: ProtoJSONMessage>(
        _ value: JSONDocument, _ path: @autoclosure () -> String, as type: Message.Type = Message.self
    ) throws(ProtoJSONError) -> Message? {
        if case .null = value { return nil }
        return try Message(json: value, path: path())
    }

    public static func bool(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        default: throw refused(value, "true or false", path())
        }
    }

    public static func string(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> String
    {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default: throw refused(value, "a string", path())
        }
    }

    public static func bytes(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> [UInt8]
    {
        switch value {
        case .null: return []
        case .string(let text):
            guard let decoded = Base64.decode(text) else {
                throw ProtoJSONError(path: path(), message: "expected base64, got \(quoted(text))")
            }
            return decoded
        default: throw refused(value, "a base64 string", path())
        }
    }

    public static func int32(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> Int32 {
        try integer(value, path(), as: Int32.self)
    }

    public static func uint32(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> UInt32
    {
        try integer(value, path(), as: UInt32.self)
    }

    public static func int64(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> Int64 {
        try integer(value, path(), as: Int64.self)
    }

    public static func uint64(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> UInt64
    {
        try integer(value, path(), as: UInt64.self)
    }

    public static func double(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> Double
    {
        switch value {
        case .null: return 0
        case .number(let number): return number
        case .string(let text):
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                guard let number = Double(text), number.isFinite, isDecimal(text) else {
                    throw ProtoJSONError(path: path(), message: "expected a number, got \(quoted(text))")
                }
                return number
            }
        default: throw refused(value, "a number", path())
        }
    }

    public static func float(_ value: JSONDocument, _ path: @autoclosure () -> String) throws(ProtoJSONError) -> Float {
        let number = try double(value, path())
        guard !number.isFinite || abs(number) <= Double(Float.greatestFiniteMagnitude) else {
            throw ProtoJSONError(path: path(), message: "\(number) is out of a float's range")
        }
        return Float(number)
    }

    /// An enum value by proto name or number (`null`: the zero value).
    public static func enumeration<Value: ProtoJSONEnum>(
        _ value: JSONDocument, _ path: @autoclosure () -> String, as type: Value.Type = Value.self
    ) throws(ProtoJSONError) -> Value {
        switch value {
        case .null: return Value(rawValue: 0)
        case .string(let name):
            guard let known = Value(jsonName: name) else {
                throw ProtoJSONError(path: path(), message: "\(quoted(name)) is not a value of the enum")
            }
            return known
        case .number: return Value(rawValue: try integer(value, path(), as: Int32.self))
        default: throw refused(value, "an enum name", path())
        }
    }

    /// The error for a oneof given two members (`first` was read before `second`).
    public static func oneofTwice(_ first: StaticString, _ second: StaticString, _ path: String) -> ProtoJSONError {
        ProtoJSONError(path: path, message: "sets both \(first) and \(second), members of the same oneof")
    }

    /// The error for one field given twice, once by its JSON name and once by its proto name.
    public static func fieldTwice(_ name: StaticString, _ path: String) -> ProtoJSONError {
        ProtoJSONError(path: path, message: "sets \(name) twice (by its JSON name and its proto name)")
    }

    /// A path one field deeper.
    public static func field(_ path: String, _ name: StaticString) -> String {
        path.isEmpty ? "\(name)" : "\(path).\(name)"
    }

    private static func integer<Integer: FixedWidthInteger>(
        _ value: JSONDocument, _ path: @autoclosure () -> String, as type: Integer.Type
    ) throws(ProtoJSONError) -> Integer {
        switch value {
        case .null: return 0
        case .number(let number):
            // JSON numbers arrive as doubles: beyond 2^53 they may already be rounded.
            guard number.rounded() == number, abs(number) <= 9_007_199_254_740_992, let exact = Integer(exactly: number)
            else {
                throw ProtoJSONError(
                    path: path(), message: "\(number) is not an exact \(Integer.self) (send large integers as strings)")
            }
            return exact
        case .string(let text):
            if let exact = Integer(text) { return exact }
            if let number = Double(text), isDecimal(text), number.rounded() == number,
                abs(number) <= 9_007_199_254_740_992, let exact = Integer(exactly: number)
            {
                return exact
            }
            throw ProtoJSONError(path: path(), message: "expected \(Integer.self), got \(quoted(text))")
        default: throw refused(value, "an integer", path())
        }
    }

    /// Whether `text` is written as a JSON number would be (no hex, no "inf", no spaces).
    private static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0)
            }
    }

    private static func refused(_ value: JSONDocument, _ expected: String, _ path: String) -> ProtoJSONError {
        ProtoJSONError(path: path, message: "expected \(expected), got \(value.kind)")
    }

    private static func quoted(_ text: String) -> String {
        "\"\(text.count > 40 ? text.prefix(40) + "…" : Substring(text))\""
    }
}
