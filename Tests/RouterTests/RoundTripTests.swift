import DeepLinkRouter
import Testing

@Suite struct RoundTripTests {
    static let pieces = [
        "/", "%", "+", " ", "é", "😀", "a", "Z", "0", "-", "?", "#", "&", "=", ".", "\\", ":", "@", "%2F", "~",
    ]

    static func value(_ generator: inout SplitMix64, maxPieces: UInt64 = 6) -> String {
        var value = ""
        for _ in 0..<(generator.next() % (maxPieces + 1)) {
            value += pieces[Int(generator.next() % UInt64(pieces.count))]
        }
        return value
    }

    /// Links a generated value and resolves both links back to the same destination.
    func roundTrip(_ router: Router, route: String, name: String, value: String) throws {
        let link: Link
        do {
            link = try router.link(route: route, parameters: [name: value])
        } catch {
            // Only values that no URL can carry are refused: dot segments.
            let segments = value.split(whereSeparator: { $0 == "/" || $0 == "\\" })
            #expect(error.code == .invalidValue && (segments.contains("..") || segments.contains(".")), "\(value)")
            return
        }
        for url in [link.appURL!, link.universalURL!] {
            let destination = try #require(router.resolve(url: url).destination, "\(url)")
            #expect(!destination.isFallback, "\(url)")
            #expect(destination.routeName == route, "\(url)")
            #expect(destination.parameter(name)?.value == value, "\(value.debugDescription) via \(url)")
            #expect(try router.link(for: destination) == link)
        }
    }

    @Test func stringPathParametersRoundTrip() throws {
        let router = try demoRouter()
        var generator = SplitMix64(seed: 1)
        for _ in 0..<500 { try roundTrip(router, route: "genre", name: "name", value: Self.value(&generator)) }
        for special in ["", " ", "%", "%25", "+", "a/b", "/", "é", "😀", "?#", "..."] {
            try roundTrip(router, route: "genre", name: "name", value: special)
        }
    }

    @Test func catchAllParametersRoundTrip() throws {
        let router = try demoRouter()
        var generator = SplitMix64(seed: 2)
        for _ in 0..<500 { try roundTrip(router, route: "help", name: "topic", value: Self.value(&generator)) }
        for special in ["", "/", "a//b", "/a", "a/", "%2F", "a b/c+d"] {
            try roundTrip(router, route: "help", name: "topic", value: special)
        }
    }

    @Test func queryParametersRoundTrip() throws {
        let router = try demoRouter()
        var generator = SplitMix64(seed: 3)
        for _ in 0..<500 { try roundTrip(router, route: "search", name: "q", value: Self.value(&generator)) }
        for special in ["", " ", "+", "%", "&", "=", "a=b&c=d", "#"] {
            try roundTrip(router, route: "search", name: "q", value: special)
        }
    }

    @Test func typedParametersRoundTrip() throws {
        let router = try demoRouter()
        var generator = SplitMix64(seed: 4)
        let hex = Array("0123456789abcdefABCDEF")
        for _ in 0..<200 {
            try roundTrip(router, route: "concert", name: "id", value: String(generator.next() % 1_000_000_000_000))
            var uuid = ""
            for position in 0..<36 {
                uuid.append([8, 13, 18, 23].contains(position) ? "-" : hex[Int(generator.next() % 22)])
            }
            try roundTrip(router, route: "playlist", name: "id", value: uuid)
            let slug = String(
                (0..<(1 + generator.next() % 12)).map { _ in Array("ab-_09Z")[Int(generator.next() % 7)] })
            try roundTrip(router, route: "album", name: "id", value: slug)
            let resolved = router.resolve(entityType: "album", id: slug)
            #expect(router.resolve(url: try router.link(entityType: "album", id: slug).appURL!) == resolved)
        }
    }
}
