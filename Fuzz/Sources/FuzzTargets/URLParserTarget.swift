import DeepLinkRouter

/// The WHATWG URL parser on any string, and the router's resolve on the same string.
///
/// Invariant: parsing is idempotent, so a parsed URL's `href` parses again to the same `href`
/// and the same components.
enum URLParserTarget {
    private static let parser = URLParser()
    nonisolated(unsafe) private static var router: Router?

    static func setUp() {
        router = try? Router(table: RouteTable(contentsOfFile: FuzzPaths.examples + "/routes.json"))
    }

    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        let string = String(decoding: input, as: UTF8.self)
        if let router {
            _ = router.resolve(url: string)
        }
        let parsed: ParsedURL
        do {
            parsed = try parser.parse(string)
        } catch {
            return true
        }
        let reparsed: ParsedURL
        do {
            reparsed = try parser.parse(parsed.href)
        } catch {
            preconditionFailure(
                "\(parsed.href.debugDescription) (from \(string.debugDescription)) does not parse: \(error)")
        }
        precondition(
            reparsed.href == parsed.href,
            "not idempotent: \(string.debugDescription) → \(parsed.href.debugDescription) → \(reparsed.href.debugDescription)"
        )
        precondition(
            reparsed.components.map(\.value) == parsed.components.map(\.value),
            "components differ after re-parsing \(parsed.href.debugDescription)")
        return true
    }
}
