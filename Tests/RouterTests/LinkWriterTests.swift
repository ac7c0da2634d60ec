import Testing

@testable import DeepLinkRouter

/// Reverse routing writes links from precomputed templates; these pin the bytes it writes and
/// the scanning helpers the matcher uses.
@Suite struct LinkWriterTests {
    @Test(
        "An entity's canonical URL is the preferred one of its link pair",
        arguments: [
            ("album", "abbey-road"), ("artist", "the-beatles"), ("concert", "1969"), ("track", "42"),
            ("playlist", "0f8fad5b-d9cb-469f-a165-70867728950e"),
        ])
    func canonicalURLMatchesTheLinkPair(type: String, id: String) throws {
        let router = try demoRouter()
        let url = try router.canonicalURL(entityType: type, id: id)
        #expect(url == (try router.link(entityType: type, id: id)).canonicalURL)
        #expect(url == "music://\(type)/\(id)")
        #expect(router.resolve(url: url) == router.resolve(entityType: type, id: id))
    }

    @Test func canonicalURLRefusesWhatLinkRefuses() throws {
        let router = try demoRouter()
        #expect(throws: LinkError(code: .unknownEntityType, message: "no route opens entity type \"podcast\"")) {
            try router.canonicalURL(entityType: "podcast", id: "1")
        }
        #expect(
            throws: LinkError(
                code: .invalidValue, message: "parameter \"id\" of route \"concert\": \"12a\" is not a valid int")
        ) { try router.canonicalURL(entityType: "concert", id: "12a") }
        #expect(
            throws: LinkError(
                code: .invalidValue, message: "parameter \"id\" of route \"album\": \"a b\" is not a valid slug")
        ) { try router.canonicalURL(entityType: "album", id: "a b") }
    }

    @Test func valuesAreEncodedPerPosition() throws {
        let json = #"""
            {"schemes":["x"],"hosts":["x.example.com"],"routes":[
              {"name":"first","pattern":"/{name}/page","screen":"s"},
              {"name":"rest","pattern":"/files/{*path}","screen":"s","query":{"mode":"string"}}
            ]}
            """#
        let router = Router(table: try RouteTable(jsonString: json))
        // The first segment of an app URL is its authority: ':' and '@' are encoded there only.
        let first = try router.link(route: "first", parameters: ["name": "a:b@c d"])
        #expect(first.appURL == "x://a%3Ab%40c%20d/page")
        #expect(first.universalURL == "https://x.example.com/a:b@c%20d/page")
        // A catch-all keeps its slashes; a query value is form-encoded.
        let rest = try router.link(route: "rest", parameters: ["path": "a b/c+d/é", "mode": "x y&z"])
        #expect(rest.appURL == "x://files/a%20b/c%2Bd/%C3%A9?mode=x+y%26z")
        for url in [rest.appURL!, rest.universalURL!] {
            let destination = try #require(router.resolve(url: url).destination)
            #expect(destination.parameter("path")?.value == "a b/c+d/é")
            #expect(destination.parameter("mode")?.value == "x y&z")
        }
    }

    @Test(
        "Dot segments are refused with the reason",
        arguments: [
            ("genre", "name", ".", "cannot be a path segment"), ("genre", "name", "..", "cannot be a path segment"),
            ("genre", "name", "a/../b", "contains a \"..\" segment"),
            ("genre", "name", "a\\..", "contains a \"..\" segment"),
            ("help", "topic", "a/./b", "cannot be a path segment"),
            ("help", "topic", "../x", "cannot be a path segment"),
            ("help", "topic", "a\\..\\b", "contains a \"..\" segment"),
        ])
    func dotSegments(route: String, name: String, value: String, reason: String) throws {
        let router = try demoRouter()
        #expect(
            throws: LinkError(
                code: .invalidValue,
                message: "parameter \"\(name)\" of route \"\(route)\": \(value.debugDescription) \(reason)")
        ) { try router.link(route: route, parameters: [name: value]) }
    }

    @Test func segmentScanAgreesWithAByteLoop() {
        var generator = SplitMix64(seed: 5)
        let alphabet = Array("ab/%-".utf8)
        for _ in 0..<5000 {
            let bytes = (0..<(1 + generator.next() % 40)).map { _ in alphabet[Int(generator.next() % 5)] }
            let start = Int(generator.next() % UInt64(bytes.count))
            let end = bytes[start...].firstIndex(of: 0x2F) ?? bytes.count
            let scan = bytes.withUnsafeBufferPointer { findSegmentEnd($0.baseAddress!, from: start, end: bytes.count) }
            #expect(scan.hasPercent == bytes[start..<end].contains(0x25), "\(bytes) from \(start)")
            if !scan.hasPercent { #expect(scan.end == end, "\(bytes) from \(start)") }
        }
    }

    @Test func encodedPathsMatchThroughTheScratchRetry() throws {
        let router = try demoRouter()
        let plain = try #require(router.lookup(path: "/album/abbey-road/track/7"))
        let encoded = try #require(router.lookup(path: "/album/abbey%2Droad/track/%37"))
        #expect(plain.routeIndex == encoded.routeIndex)
        #expect(encoded.parameterRange(at: 0) == 7..<19)
        #expect(router.lookup(path: "/album/abbey%2Froad/track/7")?.routeIndex != plain.routeIndex)
    }
}
