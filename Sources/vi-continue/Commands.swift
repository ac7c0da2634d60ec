import ArgumentParsing

/// The command tree of `vi-continue` and the dispatch from a parsed command line to its runner.
enum Commands {
    static let root = CommandSpec(
        name: "vi-continue",
        abstract: "Continue a visual search in the app: query, resolve, capture and search over gRPC.",
        discussion: """
            Exit codes: 0 ok, 1 not found or nothing matched, 2 usage error, 3 server unreachable
            or RPC error.
            """,
        subcommands: [
            ServeCommand.spec, HealthCommand.spec, QueryCommand.spec, CaptureCommand.spec, SearchCommand.spec,
            OpenCommand.spec, LinkCommand.spec, RoutesCommand.spec, URLCommand.spec, CatalogCommand.spec,
            DemoCommand.spec, ContinueCommand.spec,
        ])

    /// Runs the command the parser landed on.
    ///
    /// - Returns: The process exit code.
    static func run(_ arguments: ParsedArguments) async -> Int32 {
        switch arguments.commandPath.first {
        case "serve": await ServeCommand.run(arguments)
        case "health": await HealthCommand.run(arguments)
        case "query": await QueryCommand.run(arguments)
        case "capture": await CaptureCommand.run(arguments)
        case "search": await SearchCommand.run(arguments)
        case "open": await OpenCommand.run(arguments)
        case "link": await LinkCommand.run(arguments)
        case "routes": await RoutesCommand.run(arguments)
        case "url": await URLCommand.run(arguments)
        case "catalog": await CatalogCommand.run(arguments)
        case "demo": await DemoCommand.run(arguments)
        case "continue": await ContinueCommand.run(arguments)
        default: ExitCode.usage
        }
    }
}
