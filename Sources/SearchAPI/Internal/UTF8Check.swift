#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The string-field check: strict UTF-8 and no NUL byte.
///
/// Strict means the well-formed sequences of Unicode Table 3-7: no overlong forms, no surrogates,
/// nothing above U+10FFFF. When both problems occur, the one at the lower offset is reported.
package enum UTF8Check {
    package enum Outcome: Equatable, Sendable {
        case valid
        /// The offset of the first NUL byte.
        case nul(Int)
        /// The offset of the first byte of the first ill-formed sequence.
        case invalid(Int)
    }

    /// Checks `bytes`, with the standard library's vectorized validator where the OS has it.
    package static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .valid }
        guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else {
            return portableCheck(bytes)
        }
        var validPrefix = bytes.count
        var outcome = Outcome.valid
        do {
            _ = try UTF8Span(validating: bytes.span)
        } catch {
            validPrefix = error.byteOffsets.lowerBound
            outcome = .invalid(validPrefix)
        }
        if validPrefix > 0, let nul = memchr(base, 0, validPrefix) {
            return .nul(UnsafeRawPointer(nul) - UnsafeRawPointer(base))
        }
        return outcome
    }

    /// The same check in plain Swift, for Apple OSes older than `UTF8Span`.
    package static func portableCheck(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
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
