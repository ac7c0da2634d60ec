import Testing

@testable import DeepLinkRouter

/// The parser's fast path must agree with the full parser on every input it accepts.
@Suite struct URLFastPathTests {
    static func fullLayout(_ input: String) -> (href: [UInt8], layout: URLLayout)? {
        let bytes = Array(input.utf8)
        return bytes.withUnsafeBufferPointer { raw in
            let capacity = URLCore.outputCapacity(forInputCount: raw.count)
            let output = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(raw.count, 1))
            defer {
                output.deallocate()
                scratch.deallocate()
            }
            guard let layout = try? URLCore.parse(raw, output: output, scratch: scratch) else { return nil }
            return (Array(UnsafeBufferPointer(start: output, count: layout.end)), layout)
        }
    }

    func check(_ input: String) {
        let bytes = Array(input.utf8)
        guard let fast = bytes.withUnsafeBufferPointer({ URLFastPath.layout($0) }) else { return }
        guard let full = Self.fullLayout(input) else {
            Issue.record("fast path accepted \(input.debugDescription), the full parser refused it")
            return
        }
        #expect(full.href == bytes, "\(input.debugDescription)")
        #expect(full.layout == fast, "\(input.debugDescription)")
    }

    @Test func agreesWithTheFullParser() {
        let inputs = [
            "music://album/abbey-road?tab=credits", "https://music.example.com/concert/1969", "music://",
            "music://album", "https://a.b/", "https://a.b/?", "https://a.b/#", "https://a.b/x?'#`", "music://x/?'",
            "https://1.2.3.4/", "https://a.0x1/", "https://a.b./", "music://A_b~c/d", "http://ex.com/a/./b",
            "http://ex.com/a/../b", "http://ex.com/a/.../b", "ws://x.y/a:b@c", "https://a.b/%2e/", "file:///x",
            "https://a.b:443/", "https://u@a.b/", "music:///x", "music://x//y", "https://a.b/{}",
        ]
        for input in inputs { check(input) }
        for common in ["music://album/abbey-road?tab=credits", "https://music.example.com/concert/1969"] {
            #expect(Array(common.utf8).withUnsafeBufferPointer { URLFastPath.layout($0) } != nil, "\(common)")
        }
        var generator = SplitMix64(seed: 17)
        let alphabet = Array("ab.-/:?#@%'`\"<>{}^|\\ _~!$&()*+,;=0xAZ")
        for _ in 0..<20000 {
            var input = ["music://", "https://", "http://a.b/", "music://h/", "ws://"][Int(generator.next() % 5)]
            for _ in 0..<(generator.next() % 16) {
                input.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            check(input)
        }
    }
}
