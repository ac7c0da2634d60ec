#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The string-field check: strict UTF-8 and no NUL byte.
enum UTF8Check {
    enum Outcome: Equatable {
        case valid
        /// The offset of the first NUL byte.
        case nul(Int)
        /// The offset of the first byte of the first ill-formed sequence.
        case invalid(Int)
    }

    /// Checks `bytes` against the well-formed sequences of Unicode Table 3-7 (no overlong forms,
    /// no surrogates, nothing above U+10FFFF) and for NUL bytes, reporting whichever comes first.
    ///
    /// The standard library's validator and `memchr` are both vectorized, which matters for long
    /// mostly-ASCII strings.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .valid }
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
}
