import ArgumentParsing

/// The command tree of `vi-continue` and the dispatch from a parsed command line to its runner.
enum Commands {
    static let root = CommandSpec(
        name: "vi-continue",
        abstract: "Continue a visual search in the app: query, resolve, capture and search over gRPC.",
        subcommands: [ServeCommand.spec, HealthCommand.spec, DemoCommand.spec, ContinueCommand.spec])

    /// Runs the command the parser landed on.
    ///
    /// - Returns: The process exit code.
    static func run(_ arguments: ParsedArguments) async -> Int32 {
        switch arguments.commandPath.first {
        case "serve": await ServeCommand.run(arguments)
        case "health": await HealthCommand.run(arguments)
        case "demo": await DemoCommand.run(arguments)
        case "continue": await ContinueCommand.run(arguments)
        default: ExitCode.usage
        }
    }
}
