import DeepLinkRouter

/// The route-table loader on any bytes; a table that loads is resolved against in both directions.
enum RouteTableTarget {
    /// URLs tried on every table that loads, besides URLs built from the table's own routes.
    private static let urls = [
        "recipes://www.example.com/recipe/42?tab=steps",
        "https://www.example.com/recipe/42/step/3",
        "https://www.example.com/chef/ana-maria/",
        "app:/search?q=%F0%9F%8D%95",
        "https://www.example.com/tag/%2e%2e",
        "https://[::1]:8080/a/b/../c?x=1&x=2#frag",
    ]

    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        let table: RouteTable
        do {
            table = try RouteTable(json: Array(input))
        } catch {
            // The message must print; a crash here is a bug too.
            _ = "\(error)"
            return true
        }
        let router = Router(table: table)
        var tried = urls
        let scheme = table.schemes.first ?? "https"
        let host = table.hosts.first ?? "www.example.com"
        for route in table.routes.prefix(8) {
            // The pattern with each `{name...}` replaced by a value most parameter types accept.
            var path = ""
            var inParameter = false
            for character in route.pattern {
                if character == "{" {
                    inParameter = true
                    path += "7"
                } else if character == "}" {
                    inParameter = false
                } else if !inParameter {
                    path.append(character)
                }
            }
            tried.append("\(scheme)://\(host)\(path)")
            if let entityType = route.entityType {
                _ = router.resolve(entityType: entityType, id: "7")
            }
        }
        for url in tried {
            _ = router.resolve(url: url)
            _ = router.explain(url: url)
        }
        _ = router.missingRoutes(forEntityTypes: ["recipe", "chef"])
        return true
    }
}
