import DeepLinkRouter
import Testing

/// The bundled demo table, read from `Examples/demo/routes.json`.
func demoRouter() throws -> Router {
    let path = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
    return Router(table: try RouteTable(contentsOfFile: "/" + path + "/Examples/demo/routes.json"))
}

@Suite struct RouterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var url: String
        var screen: String
        var parameters: [String: String]
        var canonical: String
        var testDescription: String { url }
    }

    static let shapes: [Case] = [
        Case(url: "music://", screen: "home", parameters: [:], canonical: "music://"),
        Case(url: "https://music.example.com/", screen: "home", parameters: [:], canonical: "music://"),
        Case(
            url: "music://album/abbey-road", screen: "album", parameters: ["id": "abbey-road", "tab": "tracks"],
            canonical: "music://album/abbey-road"),
        Case(
            url: "music://album/abbey-road?tab=credits&utm=x", screen: "album",
            parameters: ["id": "abbey-road", "tab": "credits"], canonical: "music://album/abbey-road?tab=credits"),
        Case(
            url: "music://album/abbey-road?tab=bogus", screen: "album",
            parameters: ["id": "abbey-road", "tab": "tracks"],
            canonical: "music://album/abbey-road"),
        Case(
            url: "HTTPS://WWW.Music.Example.COM/album/abbey-road/", screen: "album",
            parameters: ["id": "abbey-road", "tab": "tracks"], canonical: "music://album/abbey-road"),
        Case(
            url: "music://album/abbey-road/track/7", screen: "track",
            parameters: ["album": "abbey-road", "number": "7"],
            canonical: "music://album/abbey-road/track/7"),
        Case(
            url: "music://artist/the-beatles?section=concerts", screen: "artist",
            parameters: ["id": "the-beatles", "section": "concerts"],
            canonical: "music://artist/the-beatles?section=concerts"),
        Case(
            url: "music://concert/1969", screen: "concert", parameters: ["id": "1969"],
            canonical: "music://concert/1969"),
        Case(
            url: "music://track/42?t=90", screen: "track", parameters: ["id": "42", "t": "90"],
            canonical: "music://track/42?t=90"),
        Case(
            url: "music://playlist/0F8FAD5B-D9CB-469F-A165-70867728950E", screen: "playlist",
            parameters: ["id": "0F8FAD5B-D9CB-469F-A165-70867728950E"],
            canonical: "music://playlist/0F8FAD5B-D9CB-469F-A165-70867728950E"),
        Case(
            url: "music://playlist/new", screen: "playlist-editor", parameters: [:], canonical: "music://playlist/new"),
        Case(
            url: "music://genre/rock%2Froll", screen: "genre", parameters: ["name": "rock/roll"],
            canonical: "music://genre/rock%2Froll"),
        Case(
            url: "music://genre/caf%C3%A9 noir", screen: "genre", parameters: ["name": "café noir"],
            canonical: "music://genre/caf%C3%A9%20noir"),
        Case(
            url: "music://help/account/billing", screen: "help", parameters: ["topic": "account/billing"],
            canonical: "music://help/account/billing"),
        Case(url: "music://help", screen: "help", parameters: ["topic": ""], canonical: "music://help/"),
        Case(
            url: "music://search?q=abbey+road%2B", screen: "search", parameters: ["q": "abbey road+"],
            canonical: "music://search?q=abbey+road%2B"),
    ]

    @Test("Every route shape resolves, links and resolves back", arguments: shapes)
    func bothDirections(_ testCase: Case) throws {
        let router = try demoRouter()
        let resolution = router.resolve(url: testCase.url)
        guard case .destination(let destination) = resolution else {
            Issue.record("expected a destination, got \(resolution)")
            return
        }
        #expect(destination.screen == testCase.screen)
        #expect(
            Dictionary(uniqueKeysWithValues: destination.parameters.map { ($0.name, $0.value) }) == testCase.parameters)
        #expect(destination.canonicalURL == testCase.canonical)
        let link = try router.link(for: destination)
        #expect(link.appURL == testCase.canonical)
        #expect(router.resolve(url: link.appURL!) == resolution)
        #expect(router.resolve(url: link.universalURL!) == resolution)
    }

    @Test func appSchemeUniversalLinkAndOpenIntentGiveOneDestination() throws {
        let router = try demoRouter()
        let app = router.resolve(url: "music://album/abbey-road")
        #expect(router.resolve(url: "https://music.example.com/album/abbey-road") == app)
        #expect(router.resolve(entityType: "album", id: "abbey-road") == app)
        let destination = try #require(app.destination)
        #expect(destination.entity == EntityReference(type: "album", id: "abbey-road"))
        #expect(destination.routePattern == "/album/{id:slug}")
        #expect(destination.parameter("id")?.kind == .slug)
        #expect(destination.parameter("tab")?.fromQuery == true)
        #expect(router.resolve(url: "music://concert/77").destination?.parameter("id")?.intValue == 77)
        let link = try router.link(entityType: "concert", id: "77")
        #expect(link == Link(appURL: "music://concert/77", universalURL: "https://music.example.com/concert/77"))
    }

    @Test func everyDemoEntityTypeHasARoute() throws {
        let router = try demoRouter()
        #expect(router.missingRoutes(forEntityTypes: ["album", "artist", "concert", "track", "playlist"]) == [])
        #expect(
            router.missingRoutes(forEntityTypes: ["album", "podcast", "station", "podcast"]) == ["podcast", "station"])
    }

    static let refusals: [(String, Refusal.Code, String)] = [
        ("javascript:alert(1)", .forbiddenScheme, "scheme \"javascript\" is not allowed"),
        ("http://music.example.com/album/x", .forbiddenScheme, "scheme \"http\" is not allowed"),
        ("data:text/html,hi", .forbiddenScheme, "scheme \"data\" is not allowed"),
        ("https://evil.test/album/x", .hostNotAllowed, "host \"evil.test\" is not an allowed universal-link host"),
        (
            #"https://evil.test\@music.example.com/"#, .hostNotAllowed,
            "host \"evil.test\" is not an allowed universal-link host"
        ),
        ("https://music.example.com@evil.test/", .credentials, "URLs with credentials are refused"),
        ("music://user:pw@album/x", .credentials, "URLs with credentials are refused"),
        (
            "https://music.example.com:8443/album/x", .hostNotAllowed,
            "port 8443 is not allowed for host \"music.example.com\""
        ),
        ("music:album/x", .invalidURL, "an app URL needs \"//\" after the scheme"),
        ("music://album:1/x", .invalidURL, "an app URL has no port"),
        ("album/abbey-road", .invalidURL, "missing scheme (relative URLs are not accepted)"),
        ("https://[::1/", .invalidURL, "invalid IPv6 address"),
        ("music://album/%zz", .invalidURL, "path segment has an invalid percent-encoding"),
        ("music://album/abc%", .invalidURL, "path segment has an invalid percent-encoding"),
        ("music://genre/%FF", .invalidParameter, "path segment is not UTF-8 once decoded"),
        ("music://genre/a%00b", .invalidParameter, "path segment contains control characters"),
        ("music://genre/%0Aevil", .invalidParameter, "path segment contains control characters"),
        ("music://genre/..%2F..%2Fetc", .invalidParameter, "path segment contains a \"..\" segment once decoded"),
        ("music://help/a/%2E%2E%5Cb", .invalidParameter, "path segment contains a \"..\" segment once decoded"),
        ("music://search?q=%zz", .invalidURL, "query parameter \"q\" has an invalid percent-encoding"),
        ("music://search?q=a%07", .invalidParameter, "query parameter \"q\" contains control characters"),
    ]

    @Test("Hostile and foreign URLs are refused with a reason", arguments: refusals)
    func refused(_ url: String, _ code: Refusal.Code, _ message: String) throws {
        #expect(try demoRouter().resolve(url: url) == .refused(Refusal(code: code, message: message)))
    }

    @Test func overlongURLsAreRefused() throws {
        let router = Router(table: try demoRouter().table, maxURLLength: 64)
        let url = "music://genre/" + String(repeating: "a", count: 100)
        #expect(
            router.resolve(url: url)
                == .refused(Refusal(code: .tooLong, message: "URL is 114 bytes long; the limit is 64")))
        // The default limit still routes long but sane URLs.
        #expect(
            try demoRouter().resolve(url: "music://genre/" + String(repeating: "a", count: 4000)).destination != nil)
    }

    @Test func dotSegmentsAreResolvedBeforeRouting() throws {
        let router = try demoRouter()
        #expect(router.resolve(url: "music://album/x/../abbey-road") == router.resolve(url: "music://album/abbey-road"))
        #expect(
            router.resolve(url: "https://music.example.com/genre/%2e%2E/album/%2E/abbey-road")
                == router.resolve(url: "music://album/abbey-road"))
        // For an app URL the authority is not part of the path: ".." cannot climb above it.
        #expect(router.resolve(url: "music://genre/x/../../album").destination?.parameter("name")?.value == "album")
        // A backslash is a path separator only in special URLs; in the host position it is refused.
        let browserHost = router.resolve(url: #"https://music.example.com\@evil.test/"#)
        #expect(browserHost.destination?.fallbackReason == "no route matches \"/@evil.test/\"")
    }

    @Test func unknownURLsFallBackToSearchWithWhatCouldBeRead() throws {
        let router = try demoRouter()
        let resolution = router.resolve(url: "https://music.example.com/albums/abbey%20road?ref=x")
        guard case .fallback(let destination) = resolution else {
            Issue.record("expected a fallback, got \(resolution)")
            return
        }
        #expect(destination.screen == "search")
        #expect(destination.isFallback)
        #expect(destination.fallbackReason == "no route matches \"/albums/abbey road\"")
        #expect(destination.parameter("q")?.value == "albums abbey road")
        #expect(destination.canonicalURL == "music://search?q=albums+abbey+road")
        let typed = try #require(router.resolve(url: "music://nowhere?q=let+it+be").destination)
        #expect(typed.parameter("q")?.value == "let it be")
        // Slugs never hold dots, ints never letters: those fall back too.
        #expect(router.resolve(url: "music://concert/abc").destination?.isFallback == true)
        #expect(router.resolve(url: "music://album/a.b").destination?.isFallback == true)
    }

    @Test func trailingSlashPolicyIsExplicit() throws {
        let strict = try RouteTable(
            jsonString: #"{"schemes":["x"],"trailingSlash":"strict","routes":[{"pattern":"/a/{id:int}","screen":"a"}]}"#
        )
        #expect(Router(table: strict).resolve(url: "x://a/1").destination != nil)
        #expect(
            Router(table: strict).resolve(url: "x://a/1/")
                == .refused(Refusal(code: .notFound, message: "no route matches \"/a/1/\"")))
        let lenient = try RouteTable(
            jsonString: #"{"schemes":["x"],"routes":[{"pattern":"/a/{id:int}","screen":"a"}]}"#)
        #expect(Router(table: lenient).resolve(url: "x://a/1/").destination?.parameter("id")?.value == "1")
    }

    @Test func openIntentTargetsAreChecked() throws {
        let router = try demoRouter()
        #expect(
            router.resolve(entityType: "podcast", id: "1")
                == .refused(Refusal(code: .unknownEntityType, message: "no route opens entity type \"podcast\"")))
        #expect(
            router.resolve(entityType: "concert", id: "x1")
                == .refused(Refusal(code: .invalidParameter, message: "id \"x1\" of \"concert\" is not a valid int")))
        #expect(throws: LinkError(code: .unknownEntityType, message: "no route opens entity type \"podcast\"")) {
            try router.link(entityType: "podcast", id: "1")
        }
    }

    static let linkFailures: [(String, [String: String], LinkError)] = [
        ("nope", [:], LinkError(code: .unknownRoute, message: "no route is named \"nope\"")),
        ("album", [:], LinkError(code: .missingParameter, message: "route \"album\" needs a value for \"id\"")),
        (
            "album", ["id": "x", "page": "2"],
            LinkError(code: .unknownParameter, message: "route \"album\" has no parameter \"page\"")
        ),
        (
            "album", ["id": "abbey road"],
            LinkError(
                code: .invalidValue, message: "parameter \"id\" of route \"album\": \"abbey road\" is not a valid slug")
        ),
        (
            "album", ["id": "x", "tab": "lyrics"],
            LinkError(
                code: .invalidValue,
                message: "parameter \"tab\" of route \"album\": \"lyrics\" is not a valid enum(tracks|credits|reviews)")
        ),
        (
            "genre", ["name": ".."],
            LinkError(
                code: .invalidValue, message: "parameter \"name\" of route \"genre\": \"..\" cannot be a path segment")
        ),
        (
            "genre", ["name": "a/../b"],
            LinkError(
                code: .invalidValue,
                message: "parameter \"name\" of route \"genre\": \"a/../b\" contains a \"..\" segment")
        ),
        (
            "genre", ["name": "a\u{0}"],
            LinkError(
                code: .invalidValue,
                message: "parameter \"name\" of route \"genre\": \"a\\0\" contains control characters")
        ),
    ]

    @Test("Reverse routing refuses values that cannot round-trip", arguments: linkFailures)
    func linkErrors(_ route: String, _ parameters: [String: String], _ error: LinkError) throws {
        let router = try demoRouter()
        #expect(throws: error) { try router.link(route: route, parameters: parameters) }
    }

    @Test func explainNamesTheClosestRoutesAndWhyEachFailed() throws {
        let explanation = try demoRouter().explain(url: "music://album/abbey_road!/track/x")
        #expect(explanation.resolution.destination?.isFallback == true)
        #expect(explanation.path == "/album/abbey_road!/track/x")
        #expect(
            explanation.candidates.map(\.reason) == [
                "segment 2 \"abbey_road!\" is not a valid slug for {id}",
                "segment 2 \"abbey_road!\" is not a valid slug for {album}",
                "segment 1 is \"album\", not \"\"",
            ])
        let matched = try demoRouter().explain(url: "music://playlist/new")
        #expect(matched.candidates.first?.reason == "matches (chosen)")
        #expect(matched.candidates.first?.routeName == "new-playlist")
        #expect(
            matched.candidates.dropFirst().first?.reason
                == "segment 2 \"new\" is not a valid uuid for {id}")
        let refused = try demoRouter().explain(url: "javascript:alert(1)")
        #expect(refused.candidates.isEmpty)
        #expect(refused.resolution.refusal?.code == .forbiddenScheme)
    }

    @Test func pathLookupReportsRouteAndParameterRanges() throws {
        let router = try demoRouter()
        let match = try #require(router.lookup(path: "/album/abbey-road/track/7"))
        #expect(router.routes[match.routeIndex].name == "album-track")
        #expect(match.parameterCount == 2)
        #expect(match.parameterRange(at: 0) == 7..<17)
        #expect(match.parameterRange(at: 1) == 24..<25)
        #expect(router.lookup(path: "/nowhere/at/all") == nil)
        #expect(router.lookup(path: "relative") == nil)
    }
}
