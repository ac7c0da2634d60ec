import DeepLinkRouter
import Testing

@Suite struct RouteTableTests {
    static func table(_ routes: String, extra: String = "") -> String {
        #"{"schemes":["x"],"hosts":["x.example.com"]\#(extra),"routes":[\#(routes)]}"#
    }

    static let invalidTables: [(String, RouteTableError)] = [
        ("{", RouteTableError(code: .invalidJSON, message: "invalid JSON at line 1, column 2: expected a string key")),
        (
            "{\n  \"routes\": [,]\n}",
            RouteTableError(code: .invalidJSON, message: "invalid JSON at line 2, column 14: unexpected character")
        ),
        ("[]", RouteTableError(code: .invalidField, message: "the route table must be an object")),
        (
            #"{"version":2,"schemes":["x"],"routes":[]}"#,
            RouteTableError(code: .invalidField, message: "unsupported version (only 1 is known)")
        ),
        (
            #"{"schemes":["x"],"routes":[],"color":1}"#,
            RouteTableError(code: .invalidField, message: "unknown field \"color\"")
        ),
        (
            #"{"routes":[]}"#,
            RouteTableError(code: .invalidField, message: "the table needs at least one scheme or host")
        ),
        (
            #"{"schemes":["https"],"routes":[]}"#,
            RouteTableError(code: .invalidField, message: "scheme \"https\" cannot be an app scheme")
        ),
        (
            #"{"hosts":["a b"],"routes":[]}"#,
            RouteTableError(code: .invalidField, message: "invalid host \"a b\"")
        ),
        (
            table(#"{"pattern":"/a"}"#),
            RouteTableError(code: .invalidField, message: "route \"/a\" needs a \"screen\" string")
        ),
        (
            table(#"{"pattern":"a","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern, message: "route \"a\": invalid pattern \"a\": a pattern starts with '/'")
        ),
        (
            table(#"{"pattern":"/a/{id:float}","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern,
                message: "route \"/a/{id:float}\": invalid pattern \"/a/{id:float}\": unknown parameter type \"float\"")
        ),
        (
            table(#"{"pattern":"/a/{*rest}/b","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern,
                message:
                    "route \"/a/{*rest}/b\": invalid pattern \"/a/{*rest}/b\": a catch-all {*rest} must be the last segment"
            )
        ),
        (
            table(#"{"pattern":"/a/x{id}","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern,
                message:
                    "route \"/a/x{id}\": invalid pattern \"/a/x{id}\": segment \"x{id}\" mixes text and a parameter")
        ),
        (
            table(#"{"pattern":"/a/{id}/{id:int}","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern,
                message:
                    "route \"/a/{id}/{id:int}\": invalid pattern \"/a/{id}/{id:int}\": parameter \"id\" appears twice")
        ),
        (
            table(#"{"name":"r","pattern":"/a/{id:enum(x||y)}","screen":"s"}"#),
            RouteTableError(
                code: .invalidPattern,
                message: "route \"r\": invalid pattern \"/a/{id:enum(x||y)}\": unknown parameter type \"enum(x||y)\"")
        ),
        (
            table(#"{"name":"r","pattern":"/a","screen":"s"},{"name":"r","pattern":"/b","screen":"s"}"#),
            RouteTableError(code: .duplicateRoute, message: "two routes are named \"r\"")
        ),
        (
            table(
                #"{"name":"r","pattern":"/a/{id}","screen":"s","entity":"e"},{"name":"q","pattern":"/b/{id}","screen":"s","entity":"e"}"#
            ),
            RouteTableError(code: .duplicateEntity, message: "routes \"r\" and \"q\" both open entity type \"e\"")
        ),
        (
            table(#"{"name":"r","pattern":"/a","screen":"s","entity":"e"}"#),
            RouteTableError(
                code: .invalidField, message: "route \"r\": an entity route needs exactly one path parameter (the id)")
        ),
        (
            table(#"{"name":"r","pattern":"/a","screen":"s","query":{"n":{"type":"int","default":"x"}}}"#),
            RouteTableError(code: .invalidField, message: "route \"r\": default \"x\" of \"n\" is not a valid int")
        ),
        (
            table(#"{"name":"r","pattern":"/a","screen":"s","query":{"n":"float"}}"#),
            RouteTableError(
                code: .invalidPattern, message: "route \"r\": unknown type \"float\" for query parameter \"n\"")
        ),
        (
            table(#"{"name":"r","pattern":"/a","screen":"s"}"#, extra: #","fallback":{"route":"search"}"#),
            RouteTableError(code: .invalidField, message: "fallback route \"search\" does not exist")
        ),
        (
            table(
                #"{"name":"a","pattern":"/a/{id:int}","screen":"s"},{"name":"b","pattern":"/a/{key:slug}","screen":"s"}"#
            ),
            RouteTableError(
                code: .conflict,
                message: "routes \"a\" (/a/{id:int}) and \"b\" (/a/{key:slug}) conflict: both match x://a/1")
        ),
        (
            table(
                #"{"name":"a","pattern":"/p/{id:uuid}/{v:enum(b|c)}","screen":"s"},{"name":"b","pattern":"/p/{key:slug}/{w:enum(c|d)}","screen":"s"}"#
            ),
            RouteTableError(
                code: .conflict,
                message:
                    "routes \"a\" (/p/{id:uuid}/{v:enum(b|c)}) and \"b\" (/p/{key:slug}/{w:enum(c|d)}) conflict: both match x://p/00000000-0000-0000-0000-000000000000/c"
            )
        ),
        (
            table(#"{"name":"a","pattern":"/{x}/b","screen":"s"},{"name":"b","pattern":"/{y}/b","screen":"s"}"#),
            RouteTableError(
                code: .conflict, message: "routes \"a\" (/{x}/b) and \"b\" (/{y}/b) conflict: both match x://x/b")
        ),
        (
            table(#"{"name":"a","pattern":"/h/{*r}","screen":"s"},{"name":"b","pattern":"/h/{*s}","screen":"s"}"#),
            RouteTableError(
                code: .conflict, message: "routes \"a\" (/h/{*r}) and \"b\" (/h/{*s}) conflict: both match x://h/x")
        ),
    ]

    @Test("Invalid tables fail with the exact error", arguments: invalidTables)
    func loadErrors(_ json: String, _ error: RouteTableError) {
        #expect(throws: error) { try RouteTable(jsonString: json) }
    }

    @Test func unreadableFilesAreNamed() {
        #expect(
            throws: RouteTableError(code: .unreadable, message: "cannot read route table \"/nonexistent/routes.json\"")
        ) {
            try RouteTable(contentsOfFile: "/nonexistent/routes.json")
        }
    }

    @Test func routesOfDifferentRankNeverConflict() throws {
        let table = try RouteTable(
            jsonString: Self.table(
                #"{"pattern":"/a/new","screen":"s"},{"pattern":"/a/{id:int}","screen":"s"},{"pattern":"/a/{id:uuid}","screen":"s"},{"pattern":"/a/{name}","screen":"s"},{"pattern":"/a/{*rest}","screen":"s"}"#
            ))
        #expect(table.routes.map(\.pattern) == ["/a/new", "/a/{id:int}", "/a/{id:uuid}", "/a/{name}", "/a/{*rest}"])
        let router = Router(table: table)
        #expect(router.resolve(url: "x://a/new").destination?.routePattern == "/a/new")
        #expect(router.resolve(url: "x://a/12").destination?.routePattern == "/a/{id:int}")
        #expect(router.resolve(url: "x://a/new2").destination?.routePattern == "/a/{name}")
        #expect(router.resolve(url: "x://a/b/c").destination?.parameter("rest")?.value == "b/c")
    }

    @Test func precedenceBacktracksOutOfStaticAndTypedBranches() throws {
        let router = Router(
            table: try RouteTable(
                jsonString: Self.table(
                    #"{"name":"static","pattern":"/u/new/edit","screen":"s"},{"name":"typed","pattern":"/u/{id:slug}/posts","screen":"s"},{"name":"untyped","pattern":"/u/{any}/{tab:int}","screen":"s"},{"name":"rest","pattern":"/u/{*rest}","screen":"s"}"#
                )))
        #expect(router.resolve(url: "x://u/new/edit").destination?.routeName == "static")
        #expect(router.resolve(url: "x://u/new/posts").destination?.routeName == "typed")
        #expect(router.resolve(url: "x://u/new/7").destination?.routeName == "untyped")
        #expect(router.resolve(url: "x://u/new/other").destination?.routeName == "rest")
        #expect(router.resolve(url: "x://u/new/7").destination?.parameter("any")?.value == "new")
    }

    @Test func theSameTableInAHundredOrdersResolvesIdentically() throws {
        let routes = [
            #"{"name":"home","pattern":"/","screen":"home"}"#,
            #"{"name":"album","pattern":"/album/{id:slug}","screen":"album","entity":"album"}"#,
            #"{"name":"album-int","pattern":"/album/{id:int}/credits","screen":"credits"}"#,
            #"{"name":"album-new","pattern":"/album/new","screen":"editor"}"#,
            #"{"name":"track","pattern":"/album/{id:slug}/track/{n:int}","screen":"track"}"#,
            #"{"name":"any","pattern":"/album/{id}/{tab}","screen":"tab"}"#,
            #"{"name":"uuid","pattern":"/p/{id:uuid}","screen":"p"}"#,
            #"{"name":"p-enum","pattern":"/p/{kind:enum(top|new)}","screen":"pe"}"#,
            #"{"name":"docs","pattern":"/docs/{*path}","screen":"docs"}"#,
            #"{"name":"docs-index","pattern":"/docs","screen":"docs-index"}"#,
            #"{"name":"search","pattern":"/search","screen":"search","query":{"q":"string"}}"#,
        ]
        let urls = [
            "x://", "x://album/abbey-road", "x://album/42/credits", "x://album/new", "x://album/new/credits",
            "x://album/a/track/3", "x://album/a/track/x", "x://album/a%20b/c", "x://p/top", "x://p/NEW",
            "x://p/00000000-0000-0000-0000-000000000000", "x://docs", "x://docs/", "x://docs/a/b", "x://search?q=1",
            "x://nowhere", "https://x.example.com/album/new/", "https://evil.test/",
        ]
        func outcome(_ router: Router) -> [String] {
            urls.map { url in
                let resolution = router.resolve(url: url)
                return
                    "\(resolution) \(resolution.destination?.routeName ?? "-") \(resolution.destination?.canonicalURL ?? "-")"
            }
        }
        var generator = SplitMix64(seed: 11)
        let fallback = #","fallback":{"route":"search","parameter":"q"}"#
        let reference = outcome(
            Router(table: try RouteTable(jsonString: Self.table(routes.joined(separator: ","), extra: fallback))))
        #expect(reference[1].hasPrefix("destination album(id=abbey-road)"))
        for _ in 0..<100 {
            let shuffled = routes.shuffled(using: &generator)
            let router = Router(
                table: try RouteTable(jsonString: Self.table(shuffled.joined(separator: ","), extra: fallback)))
            #expect(outcome(router) == reference)
        }
    }
}
