import ArgumentParsing
import DeepLinkRouter
import SearchSession

/// `vi-continue routes check|explain`: the route table against a catalog, and why a URL routes
/// where it does.
enum RoutesCommand {
    static let check = CommandSpec(
        name: "check",
        abstract: "Check that every entity type of a catalog has an open route.",
        discussion: """
            Loads the route table (which also checks it: two routes of equal rank that can match one
            URL are an error naming both, with an example URL) and lists the catalog's entity types
            with the route that opens each. Exits 1 when a type has no open route (its results
            cannot be opened) or the table does not load.

            EXAMPLES:
              vi-continue routes check
              vi-continue routes check --routes my-routes.json --catalog my-catalog.jsonl --json
            """,
        options: [
            ClientOptions.routes,
            OptionSpec(
                "catalog", valueName: "FILE",
                help: "The catalog, JSON Lines (default: $VI_CONTINUE_CATALOG, else the bundled demo)."),
        ],
        flags: [ClientOptions.json])

    static let explain = CommandSpec(
        name: "explain",
        abstract: "Explain how a URL resolves: the closest routes and why each failed.",
        discussion: """
            Exits 0 when a route matches, 1 when the URL falls back or is refused.

            EXAMPLES:
              vi-continue routes explain music://album/Abbey-Road
              vi-continue routes explain https://music.example.com/concert/next --limit 5 --json
            """,
        options: [
            ClientOptions.routes,
            OptionSpec("limit", valueName: "N", help: "How many candidate routes to show (default 3)."),
        ],
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("URL", help: "The URL to explain.")])

    static let spec = CommandSpec(
        name: "routes", abstract: "Check the route table, or explain how a URL routes.",
        subcommands: [check, explain])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            switch arguments.commandPath.last {
            case "check": try runCheck(arguments)
            default: try runExplain(arguments)
            }
        }
    }

    private static func runCheck(_ arguments: ParsedArguments) throws(CommandFailure) -> Int32 {
        let settings = Settings(arguments)
        let json = arguments.flag("json")
        let routesPath = try ClientOptions.routesPath(settings)
        let catalogPath: String
        if let path = settings.value("catalog") {
            catalogPath = path
        } else if let demo = DemoData.directory() {
            catalogPath = demo + "/catalog.jsonl"
        } else {
            throw .usage("no --catalog given and the bundled demo (Examples/demo) was not found")
        }
        let table: RouteTable
        do {
            table = try RouteTable(contentsOfFile: routesPath)
        } catch {
            if json {
                print(
                    JSONValue.object([
                        ("routes", .string(routesPath)), ("ok", .bool(false)), ("error", .string(error.message)),
                    ]).rendered)
            }
            throw .notFound("route table \(routesPath): \(error.message)")
        }
        let catalog: CatalogFile
        do {
            catalog = try CatalogLoader.load(path: catalogPath)
        } catch {
            throw .usage("catalog \(catalogPath): \(error.message)")
        }
        let router = Router(table: table)
        let types = Set(catalog.entities.map(\.type)).sorted()
        let missing = router.missingRoutes(forEntityTypes: types)
        var routeByType: [String: Route] = [:]
        for route in table.routes {
            if let type = route.entityType { routeByType[type] = route }
        }

        if json {
            let rows = types.map { type -> JSONValue in
                let route = routeByType[type]
                return .object([
                    ("type", .string(type)), ("route", .optional(route?.name)), ("pattern", .optional(route?.pattern)),
                ])
            }
            print(
                JSONValue.object([
                    ("routes", .string(routesPath)), ("catalog", .string(catalogPath)), ("ok", .bool(missing.isEmpty)),
                    ("types", .array(rows)), ("missing", .array(missing.map(JSONValue.string))),
                ]).rendered)
        } else {
            var fields = FieldList()
            fields.append("routes", "\(routesPath) (\(table.routes.count) routes)")
            fields.append("catalog", "\(catalogPath) (\(catalog.entities.count) entities, \(types.count) types)")
            print(fields.rendered + "\n")
            var rows = TextTable("type", "route", "pattern")
            for type in types {
                let route = routeByType[type]
                rows.append(type, route?.name ?? "MISSING", route?.pattern ?? "-")
            }
            print(rows.rendered)
            if missing.isEmpty { print("\nevery entity type has an open route") }
        }
        guard missing.isEmpty else {
            throw .notFound(
                "no open route for entity type\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                    + "in \(routesPath): their results cannot be opened")
        }
        return ExitCode.ok
    }

    private static func runExplain(_ arguments: ParsedArguments) throws(CommandFailure) -> Int32 {
        guard let limit = Int(arguments.value("limit") ?? "3"), limit > 0 else {
            throw .usage("--limit must be a positive whole number")
        }
        let (router, _) = try ClientOptions.loadRouter(Settings(arguments))
        let url = arguments.positionals[0]
        let explanation = router.explain(url: url, limit: limit)
        let outcome: String
        let detail: String
        switch explanation.resolution {
        case .destination(let destination):
            outcome = "matched"
            detail = "route \(destination.routeName) (screen \(destination.screen))"
        case .fallback(let destination):
            outcome = "fallback"
            detail = destination.fallbackReason ?? ""
        case .refused(let refusal):
            outcome = "refused"
            detail = refusal.message
        }
        if arguments.flag("json") {
            let candidates = explanation.candidates.map { candidate -> JSONValue in
                .object([
                    ("route", .string(candidate.routeName)), ("pattern", .string(candidate.pattern)),
                    ("matched_segments", .int(Int64(candidate.matchedSegments))), ("reason", .string(candidate.reason)),
                ])
            }
            print(
                JSONValue.object([
                    ("url", .string(url)), ("outcome", .string(outcome)), ("detail", .string(detail)),
                    ("path", .optional(explanation.path)), ("candidates", .array(candidates)),
                ]).rendered)
        } else {
            var fields = FieldList()
            fields.append("url", url)
            fields.append("path", explanation.path ?? "")
            fields.append(outcome, detail)
            print(fields.rendered)
            if !explanation.candidates.isEmpty {
                var rows = TextTable("route", "pattern", "matched", "why")
                rows.maximumCellWidth = 80
                for candidate in explanation.candidates {
                    rows.append(
                        candidate.routeName, candidate.pattern, String(candidate.matchedSegments), candidate.reason)
                }
                print("\n" + rows.rendered)
            }
        }
        return outcome == "matched" ? ExitCode.ok : ExitCode.notFound
    }
}
