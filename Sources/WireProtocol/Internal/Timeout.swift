/// The `grpc-timeout` header: 1–8 ASCII digits followed by a unit (H, M, S, m, u, n).
enum GRPCTimeout {
    /// Parses a header value.
    ///
    /// - Returns: The duration, or `nil` when the value is malformed.
    static func parse(_ text: some StringProtocol) -> Duration? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 9 else { return nil }
        var value: Int64 = 0
        for b in bytes.dropLast() {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(b - UInt8(ascii: "0"))
        }
        switch bytes.last! {
        case UInt8(ascii: "H"): return .seconds(value * 3600)
        case UInt8(ascii: "M"): return .seconds(value * 60)
        case UInt8(ascii: "S"): return .seconds(value)
        case UInt8(ascii: "m"): return .milliseconds(value)
        case UInt8(ascii: "u"): return .microseconds(value)
        case UInt8(ascii: "n"): return .nanoseconds(value)
        default: return nil
        }
    }

    /// Encodes a duration in the finest unit that fits in 8 digits, rounding up so the peer
    /// never sees a shorter deadline than ours.
    static func encode(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return "1n" }
        let nanos = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        let units: [(Double, Character)] = [(1, "n"), (1e3, "u"), (1e6, "m"), (1e9, "S"), (60e9, "M"), (3600e9, "H")]
        for (scale, unit) in units {
            let value = (nanos / scale).rounded(.up)
            if value <= 99_999_999 { return "\(Int64(value))\(unit)" }
        }
        return "99999999H"
    }
}
