internal import Base64Coding
internal import JSONReading

/// Writes compact proto3 JSON into a byte array: what generated ``ProtoJSONMessage/writeJSON(to:)``
/// calls, member by member.
///
/// Commas are placed by the writer: ``key(_:)`` and ``element()`` put one before every member or
/// element but the first of its object or array.
public struct ProtoJSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the object or array being written has no member yet.
    private var atFirst = true

    public init() {}

    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        atFirst = true
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        atFirst = false
    }

    public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        atFirst = true
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        atFirst = false
    }

    /// Starts a member: a comma unless it is the first, then the quoted name and a colon.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    /// Starts an array element: a comma unless it is the first.
    public mutating func element() { separate() }

    private mutating func separate() {
        if !atFirst { bytes.append(UInt8(ascii: ",")) }
        atFirst = false
    }

    public mutating func bool(_ value: Bool) { ascii(value ? "true" : "false") }

    public mutating func int32(_ value: Int32) { ascii(String(value)) }

    public mutating func uint32(_ value: UInt32) { ascii(String(value)) }

    /// A 64-bit integer, quoted: JavaScript's numbers hold 53 bits.
    public mutating func int64(_ value: Int64) { ascii("\"\(value)\"") }

    /// An unsigned 64-bit integer, quoted: JavaScript's numbers hold 53 bits.
    public mutating func uint64(_ value: UInt64) { ascii("\"\(value)\"") }

    /// A float: its shortest decimal that reads back as the same float.
    public mutating func float(_ value: Float) {
        guard value.isFinite else { return nonFinite(value.isNaN, value < 0) }
        ascii(JSONNumberLayout.text(shortest: value.description))
    }

    /// A double: its shortest decimal that reads back as the same double.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return nonFinite(value.isNaN, value < 0) }
        ascii(JSONNumberLayout.text(shortest: value.description))
    }

    private mutating func nonFinite(_ isNaN: Bool, _ isNegative: Bool) {
        ascii(isNaN ? "\"NaN\"" : isNegative ? "\"-Infinity\"" : "\"Infinity\"")
    }

    /// A string, escaped as JSON requires (``JSONStringLiteral``).
    public mutating func string(_ value: String) { JSONStringLiteral.append(value, to: &bytes) }

    /// Bytes as standard base64 with padding, quoted.
    public mutating func base64(_ value: [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        Base64.encode(value, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// An enum value by its proto name, or by number when this version does not know it.
    public mutating func enumeration(_ value: some ProtoJSONEnum) {
        if let name = value.jsonName { string(name) } else { int32(value.rawValue) }
    }

    private mutating func ascii(_ text: String) { bytes.append(contentsOf: text.utf8) }
}

/// Lays out a number's shortest digits the way protobuf's reference JSON printer (Python's float
/// repr) does, so the same message prints the same bytes here and there: plain notation for
/// decimal exponents from -4 to 15 (`100000000.0`, `0.0001`), otherwise `1e-05`, `1.5e+16`.
enum JSONNumberLayout {
    /// `shortest`: Swift's `description` of a finite float or double (`1e+08`, `0.1`, `-3.0`).
    static func text(shortest: String) -> String {
        var text = Substring(shortest)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        // value = 0.digits × 10^point
        var digits = ""
        var point = 0
        var seenPoint = false
        for character in text {
            if character == "." {
                seenPoint = true
            } else {
                digits.append(character)
                if !seenPoint { point += 1 }
            }
        }
        let leadingZeros = digits.prefix { $0 == "0" }.count
        digits.removeFirst(leadingZeros)
        point -= leadingZeros
        while digits.last == "0" { digits.removeLast() }
        let sign = negative ? "-" : ""
        guard !digits.isEmpty else { return sign + "0.0" }
        point += exponent
        if point <= -4 || point > 16 {
            let mantissa = digits.count == 1 ? digits : "\(digits.first!).\(digits.dropFirst())"
            let power = point - 1
            let magnitude = String(abs(power))
            return "\(sign)\(mantissa)e\(power < 0 ? "-" : "+")\(magnitude.count < 2 ? "0" : "")\(magnitude)"
        }
        if point <= 0 { return "\(sign)0.\(String(repeating: "0", count: -point))\(digits)" }
        if point >= digits.count { return "\(sign)\(digits)\(String(repeating: "0", count: point - digits.count)).0" }
        return "\(sign)\(digits.prefix(point)).\(digits.dropFirst(point))"
    }
}
