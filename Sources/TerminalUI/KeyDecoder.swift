/// Turns the bytes a terminal sends into keys.
///
/// Knows the sequences xterm-like terminals send in their default (normal cursor key) and
/// application cursor key modes: `ESC [ A` and `ESC O A` for arrows, `ESC [ 5 ~` for page up,
/// and so on. A sequence split across reads is kept until the rest arrives; a lone ESC is only
/// reported as the Escape key by ``flush()``, when no more bytes followed it in time.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Whether an incomplete escape sequence (or a lone ESC) waits for more bytes.
    public var hasPending: Bool { !pending.isEmpty }

    /// Decodes `bytes`, keeping an incomplete trailing sequence for the next call.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.key(at: index, in: pending) else { break }
            keys.append(key)
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// Gives up waiting: a pending lone ESC is the Escape key, a cut-off sequence is unknown.
    public mutating func flush() -> [Key] {
        defer { pending.removeAll() }
        if pending == [0x1B] { return [.escape] }
        return pending.isEmpty ? [] : [.unknown(pending)]
    }

    /// The key starting at `start` and its length in bytes, or nil when more bytes are needed.
    static func key(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B: return escapeSequence(at: start, in: bytes)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00..<0x20: return (.unknown([byte]), 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return utf8Character(at: start, in: bytes)
        }
    }

    private static func escapeSequence(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        guard start + 1 < bytes.count else { return nil }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O") {
            // SS3: application cursor keys and F1–F4.
            guard start + 2 < bytes.count else { return nil }
            return (finalKey(bytes[start + 2], parameter: nil) ?? .unknown(Array(bytes[start...(start + 2)])), 3)
        }
        guard introducer == UInt8(ascii: "[") else {
            // ESC followed by anything else: Alt+key, which we read as Escape then the key.
            return (.escape, 1)
        }
        // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
        var end = start + 2
        while end < bytes.count, (0x20...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let sequence = Array(bytes[start...end])
        let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        let first = Int(parameters.split(separator: ";").first ?? "")
        let key = finalKey(bytes[end], parameter: first) ?? .unknown(sequence)
        return (key, end - start + 1)
    }

    private static func finalKey(_ final: UInt8, parameter: Int?) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "Z"): .backTab
        case UInt8(ascii: "~"):
            switch parameter {
            case 1, 7: .home
            case 4, 8: .end
            case 3: .delete
            case 5: .pageUp
            case 6: .pageDown
            default: nil
            }
        default: nil
        }
    }

    private static func utf8Character(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        let lead = bytes[start]
        let length =
            switch lead {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard length > 0 else { return (.unknown([lead]), 1) }
        guard start + length <= bytes.count else { return nil }
        let slice = Array(bytes[start..<(start + length)])
        guard let scalar = String(validating: slice, as: UTF8.self)?.first else { return (.unknown(slice), length) }
        return (.character(scalar), length)
    }
}
