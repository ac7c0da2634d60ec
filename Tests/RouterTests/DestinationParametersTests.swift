import Testing

@testable import DeepLinkRouter

/// Destinations keep up to four values (48 bytes together) inline; the rest spill into an
/// array. Both storages must read back the same parameters, in the same order.
@Suite struct DestinationParametersTests {
    /// A route with six path parameters and two query parameters.
    static func wideRouter() throws -> Router {
        let json = #"""
            {"schemes":["x"],"hosts":["x.example.com"],"routes":[
              {"name":"wide","pattern":"/w/{a}/{b:int}/{c:slug}/{d}/{e}/{f:enum(on|off)}","screen":"wide",
               "query":{"p":{"type":"string","default":"none"},"q":"int"}},
              {"name":"one","pattern":"/one/{id}","screen":"one","entity":"thing",
               "query":{"sort":{"type":"enum(new|old)","default":"new"}}}
            ]}
            """#
        return Router(table: try RouteTable(jsonString: json))
    }

    func destination(_ router: Router, _ url: String) throws -> Destination {
        try #require(router.resolve(url: url).destination, "\(url)")
    }

    @Test func parametersBeyondTheFourthSpillInOrder() throws {
        let router = try Self.wideRouter()
        let destination = try destination(router, "x://w/alpha/42/s-1/delta/eps/on?q=7")
        #expect(!destination.parameters.isInline)
        #expect(destination.parameters.map(\.name) == ["a", "b", "c", "d", "e", "f", "p", "q"])
        #expect(destination.parameters.map(\.value) == ["alpha", "42", "s-1", "delta", "eps", "on", "none", "7"])
        #expect(destination.parameters.map(\.fromQuery) == [false, false, false, false, false, false, true, true])
        #expect(destination.parameter("b")?.intValue == 42)
        #expect(destination.parameter("f")?.kind == .enum)
        #expect(try router.link(for: destination).appURL == "x://w/alpha/42/s-1/delta/eps/on?q=7")
    }

    @Test func typicalDestinationsStayInline() throws {
        let router = try demoRouter()
        for url in [
            "music://album/abbey-road?tab=credits", "music://album/abbey-road/track/7",
            "music://playlist/0f8fad5b-d9cb-469f-a165-70867728950e", "https://music.example.com/concert/1969",
        ] {
            #expect(try destination(router, url).parameters.isInline, "\(url)")
        }
    }

    @Test("Values longer than the inline bytes spill and read back whole", arguments: [15, 16, 47, 48, 49, 200])
    func longValues(length: Int) throws {
        let router = try Self.wideRouter()
        let long = String(repeating: "v", count: length)
        let resolved = try destination(router, "x://one/\(long)")
        #expect(resolved.parameter("id")?.value == long)
        #expect(resolved.parameter("sort")?.value == "new")
        #expect(resolved.parameters.isInline == (length + 3 <= 48))
        // The same destination through the open-intent path, which stores strings.
        #expect(router.resolve(entityType: "thing", id: long).destination == resolved)
    }

    @Test func percentDecodedValuesAreStoredDecoded() throws {
        let router = try demoRouter()
        let genre = try destination(router, "music://genre/rock%20%26%20roll%2F%C3%A9")
        #expect(genre.parameter("name")?.value == "rock & roll/é")
        let search = try destination(router, "music://search?q=let+it%20be%2B")
        #expect(search.parameter("q")?.value == "let it be+")
        #expect(search.parameters.isInline)
    }

    @Test func fallbackParameterKeepsNameOrder() throws {
        let router = try demoRouter()
        let resolution = router.resolve(url: "music://nowhere/at/all?type=album")
        guard case .fallback(let destination) = resolution else {
            Issue.record("expected a fallback, got \(resolution)")
            return
        }
        #expect(destination.parameters.map(\.name) == ["q", "type"])
        #expect(destination.parameter("q")?.value == "nowhere at all")
        #expect(destination.parameter("type")?.value == "album")
    }

    @Test func equalParametersHashEqually() throws {
        let router = try Self.wideRouter()
        let a = try destination(router, "x://one/abc?sort=old")
        let b = try destination(router, "https://x.example.com/one/abc?sort=old")
        let c = try destination(router, "x://one/abc")
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
        #expect(a.description == "one(id=abc, sort=old)")
    }
}
