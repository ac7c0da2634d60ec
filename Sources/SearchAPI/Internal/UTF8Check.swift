/// A strict UTF-8 check that also rejects NUL, with a word-at-a-time ASCII fast path.
enum UTF8Check {
    enum Outcome: Equatable {
        case valid
        /// The offset of the first NUL byte.
        case nul(Int)
        /// The offset of the first byte of the first ill-formed sequence.
        case invalid(Int)
    }

    /// Checks `bytes` against the well-formed sequences of Unicode Table 3-7 (no overlong forms,
    /// no surrogates, nothing above U+10FFFF) and for NUL bytes.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let base = bytes.baseAddress else { return .valid }
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time while none is NUL or non-ASCII.
            while count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let highBits: UInt64 = 0x8080_8080_8080_8080
                let hasZero = (word &- 0x0101_0101_0101_0101) & ~word & highBits
                guard word & highBits == 0, hasZero == 0 else { break }
                index += 8
            }
            guard index < count else { break }
            let lead = base[index]
            if lead == 0 { return .nul(index) }
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return .invalid(index)
            }
            guard count - index >= length else { return .invalid(index) }
            let second = base[index + 1]
            guard second >= lower && second <= upper else { return .invalid(index) }
            for continuation in 2..<length where base[index + continuation] & 0xC0 != 0x80 {
                return .invalid(index)
            }
            index += length
        }
        return .valid
    }
}
