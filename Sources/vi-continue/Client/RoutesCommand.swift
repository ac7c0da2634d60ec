import ArgumentParsing
import ContinueService
import DeepLinkRouter
import SearchAPI
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
              vi-continue routes check --server 10.0.0.5:50051   (the server's table and catalog)
            """,
        options: [
            ClientOptions.routes,
            OptionSpec(
                "catalog", valueName: "FILE",
                help: "The catalog, JSON Lines (default: $VI_CONTINUE_CATALOG, else the bundled demo)."),
        ] + ClientOptions.remote,
        flags: [ClientOptions.json])

    static let explain = CommandSpec(
        name: "explain",
        abstract: "Explain how a URL resolves: the closest routes and why each failed.",
        discussion: """
            Exits 0 when a route matches, 1 when the URL falls back or is refused.

            EXAMPLES:
              vi-continue routes explain music://album/Abbey-Road
              vi-continue routes explain https://music.example.com/concert/next --limit 5 --json
              vi-continue routes explain music://album/x --server 10.0.0.5:50051
            """,
        options: [
            ClientOptions.routes,
            OptionSpec("limit", valueName: "N", help: "How many candidate routes to show (default 3, at most 100)."),
        ] + ClientOptions.remote,
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("URL", help: "The URL to explain.")])

    static let spec = CommandSpec(
        name: "routes", abstract: "Check the route table, or explain how a URL routes.",
        subcommands: [check, explain])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            switch arguments.commandPath.last {
            case "check": try await runCheck(arguments)
            default: try await runExplain(arguments)
            }
        }
    }

    private static func runCheck(_ arguments: ParsedArguments) async throws(CommandFailure) -> Int32 {
        let json = arguments.flag("json")
        let check: RouteCheck
        let routesSource: (name: String, value: String)
        let catalogSource: (name: String, value: String)?
        if arguments.value("server") != nil {
            for local in ["routes", "catalog"] where arguments.value(local) != nil {
                throw .usage("--server and --\(local) exclude each other: the server checks its own")
            }
            let backend = try ClientOptions.remoteBackend(arguments)
            check = try await withBackend(backend) { backend throws(CommandFailure) in
                try await backend.perform { try await $0.client.checkRoutes(options: $0.options) }
            }
            routesSource = ("server", backend.name)
            catalogSource = nil
        } else {
            let settings = Settings(arguments)
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
            check = RouteCheck(
                router: Router(table: table), entityTypes: catalog.entities.map(\.type),
                entityCount: catalog.entities.count)
            routesSource = ("routes", routesPath)
            catalogSource = ("catalog", catalogPath)
        }
        let missing = check.missingTypes

        if json {
            let rows = check.types.map { row -> JSONValue in
                .object([
                    ("type", .string(row.type)), ("route", row.route.isEmpty ? .null : .string(row.route)),
                    ("pattern", row.route.isEmpty ? .null : .string(row.pattern)),
                ])
            }
            var members: [(String, JSONValue)] = [(routesSource.name, .string(routesSource.value))]
            if let catalogSource { members.append((catalogSource.name, .string(catalogSource.value))) }
            members += [
                ("ok", .bool(missing.isEmpty)), ("types", .array(rows)),
                ("missing", .array(missing.map(JSONValue.string))),
            ]
            print(JSONValue.object(members).rendered)
        } else {
            var fields = FieldList()
            fields.append(routesSource.name, "\(routesSource.value) (\(check.routeCount) routes)")
            fields.append(
                "catalog",
                "\(catalogSource?.value ?? "the server's") (\(check.entityCount) entities, \(check.types.count) types)")
            print(fields.rendered + "\n")
            var rows = TextTable("type", "route", "pattern")
            for row in check.types {
                rows.append(row.type, row.route.isEmpty ? "MISSING" : row.route, row.route.isEmpty ? "-" : row.pattern)
            }
            print(rows.rendered)
            if missing.isEmpty { print("\nevery entity type has an open route") }
        }
        guard missing.isEmpty else {
            throw .notFound(
                "no open route for entity type\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                    + "in \(routesSource.value): their results cannot be opened")
        }
        return ExitCode.ok
    }

    private static func runExplain(_ arguments: ParsedArguments) async throws(CommandFailure) -> Int32 {
        guard let limit = Int(arguments.value("limit") ?? "3"), (1...100).contains(limit) else {
            throw .usage("--limit must be a whole number from 1 to 100")
        }
        let url = arguments.positionals[0]
        let explanation: RouteExplanation
        if arguments.value("server") != nil {
            if arguments.value("routes") != nil {
                throw .usage("--server and --routes exclude each other: the server uses its own route table")
            }
            explanation = try await withBackend(try ClientOptions.remoteBackend(arguments)) {
                backend throws(CommandFailure) in
                try await backend.perform {
                    try await $0.client.explainRoute(
                        ExplainRouteRequest(url: url, limit: UInt32(limit)), options: $0.options)
                }
            }
        } else {
            let (router, _) = try ClientOptions.loadRouter(Settings(arguments))
            explanation = RouteExplanation(explaining: url, on: router, limit: limit)
        }
        if arguments.flag("json") {
            let candidates = explanation.candidates.map { candidate -> JSONValue in
                .object([
                    ("route", .string(candidate.route)), ("pattern", .string(candidate.pattern)),
                    ("matched_segments", .int(Int64(candidate.matchedSegments))), ("reason", .string(candidate.reason)),
                ])
            }
            print(
                JSONValue.object([
                    ("url", .string(url)), ("outcome", .string(explanation.outcome)),
                    ("detail", .string(explanation.detail)),
                    ("path", explanation.path.isEmpty ? .null : .string(explanation.path)),
                    ("candidates", .array(candidates)),
                ]).rendered)
        } else {
            var fields = FieldList()
            fields.append("url", url)
            fields.append("path", explanation.path)
            fields.append(explanation.outcome, explanation.detail)
            print(fields.rendered)
            if !explanation.candidates.isEmpty {
                var rows = TextTable("route", "pattern", "matched", "why")
                rows.maximumCellWidth = 80
                for candidate in explanation.candidates {
                    rows.append(candidate.route, candidate.pattern, String(candidate.matchedSegments), candidate.reason)
                }
                print("\n" + rows.rendered)
            }
        }
        return explanation.outcome == "matched" ? ExitCode.ok : ExitCode.notFound
    }
}
