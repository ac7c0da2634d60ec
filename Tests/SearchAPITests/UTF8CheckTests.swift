import SearchAPI
import Testing

/// The vectorized check and the portable fallback must agree byte for byte.
@Suite struct UTF8CheckTests {
    static func both(_ bytes: [UInt8]) -> (UTF8Check.Outcome, UTF8Check.Outcome) {
        bytes.withUnsafeBufferPointer { (UTF8Check.check($0), UTF8Check.portableCheck($0)) }
    }

    @Test(
        "Both checks classify known inputs alike",
        arguments: [
            ([], UTF8Check.Outcome.valid),
            (Array("plain ASCII that is longer than eight bytes".utf8), .valid),
            (Array("Gitarre ü € 𝄞 日本語".utf8), .valid),
            ([0x61, 0x00], .nul(1)),
            (Array("0123456789abcdef".utf8) + [0], .nul(16)),
            ([0xFF], .invalid(0)),
            ([0x41, 0xC0, 0x80], .invalid(1)),
            ([0xE0, 0x80, 0xAF], .invalid(0)),
            ([0xED, 0xA0, 0x80], .invalid(0)),
            ([0xF4, 0x90, 0x80, 0x80], .invalid(0)),
            ([0x61, 0x62, 0xE2, 0x82], .invalid(2)),
            ([0x61, 0x00, 0xFF], .nul(1)),
            ([0x61, 0xFF, 0x00], .invalid(1)),
        ])
    func knownInputs(_ bytes: [UInt8], _ expected: UTF8Check.Outcome) {
        let (fast, portable) = Self.both(bytes)
        #expect(fast == expected)
        #expect(portable == expected)
    }

    @Test func bothChecksAgreeOnRandomBytes() {
        var random = MutationTests.Random(state: 42)
        // Mostly valid text with damage, so that both paths see long valid runs.
        let seed = Array("Gitarre ü € 𝄞 日本語 and some ASCII words".utf8)
        for _ in 0..<20_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let (fast, portable) = Self.both(bytes)
            #expect(fast == portable, "\(bytes)")
        }
    }
}
