import ArgumentParsing

/// `vi-continue health`: asks a server whether it serves.
enum HealthCommand {
    static let spec = CommandSpec(
        name: "health",
        abstract: "Check that a server is serving (grpc.health.v1).",
        discussion: """
            EXAMPLES:
              vi-continue health
              vi-continue health --server unix:/tmp/vi-continue.sock --json
            """,
        options: [
            OptionSpec("server", valueName: "ADDR", help: "host:port or unix:PATH (default 127.0.0.1:50051)."),
            OptionSpec("service", valueName: "NAME", help: "A service name; empty asks about the server."),
        ],
        flags: [FlagSpec("json", help: "Print one JSON object.")])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        writeError("error: health is not available yet")
        return ExitCode.rpcFailure
    }
}
