import DeepLinkRouter
import Testing

@Suite struct HostileURLTests {
    @Test func randomURLsResolveOrAreRefusedAndNeverCrash() throws {
        let router = try demoRouter()
        var generator = SplitMix64(seed: 5)
        let prefixes = [
            "music://", "https://music.example.com/", "music://album/", "music://genre/", "music://help/", "",
        ]
        let pieces =
            Array(#"/\%2e%2E%2F%5C%zz%00%FF%C3%A9..?&=+#@: é😀abc123-_"#.unicodeScalars) + ["\u{0}", "\u{7F}", "\t"]
        for _ in 0..<5000 {
            var url = prefixes[Int(generator.next() % UInt64(prefixes.count))]
            for _ in 0..<(generator.next() % 30) {
                url.unicodeScalars.append(pieces[Int(generator.next() % UInt64(pieces.count))])
            }
            switch router.resolve(url: url) {
            case .destination(let destination), .fallback(let destination):
                // Whatever resolves links back to itself, or names why it cannot.
                for parameter in destination.parameters {
                    #expect(!parameter.value.unicodeScalars.contains { $0.value < 0x20 }, "\(url.debugDescription)")
                }
                if let link = try? router.link(for: destination) {
                    #expect(router.resolve(url: link.canonicalURL).destination?.parameters == destination.parameters)
                }
            case .refused(let refusal):
                #expect(!refusal.message.isEmpty)
            }
            _ = router.explain(url: url)
        }
    }

    @Test func longPathsAndManySegmentsAreHandled() throws {
        let router = try demoRouter()
        let deep = "music://help/" + Array(repeating: "a", count: 2000).joined(separator: "/")
        #expect(router.resolve(url: deep).destination?.parameter("topic")?.value.count == 3999)
        let wide = "music://genre/" + String(repeating: "%41", count: 2500)
        #expect(router.resolve(url: wide).destination?.parameter("name")?.value == String(repeating: "A", count: 2500))
        let slashes = "music://album/" + String(repeating: "/", count: 5000)
        #expect(router.resolve(url: slashes).destination?.isFallback == true)
    }
}
