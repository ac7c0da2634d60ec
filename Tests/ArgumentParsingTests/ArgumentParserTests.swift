import Testing

@testable import ArgumentParsing

@Suite struct ArgumentParserTests {
    static let root = CommandSpec(
        name: "tool", abstract: "A tool.",
        subcommands: [
            CommandSpec(
                name: "query", abstract: "Run a query.",
                options: [
                    OptionSpec("server", valueName: "ADDR", help: "The server."),
                    OptionSpec("labels", short: "l", help: "Labels.", repeats: true),
                ],
                flags: [FlagSpec("json", help: "JSON output.")],
                positionals: [PositionalSpec("TEXT", help: "Text.", optional: true)]),
            CommandSpec(
                name: "routes", abstract: "Route tools.",
                subcommands: [
                    CommandSpec(name: "check", abstract: "Check routes."),
                    CommandSpec(
                        name: "explain", abstract: "Explain a URL.",
                        positionals: [PositionalSpec("URL", help: "A URL.")]),
                ]),
        ])

    let parser = ArgumentParser(root: Self.root)

    @Test(
        "options, flags and positionals in every accepted spelling",
        arguments: [
            (
                ["query", "--server", "h:1", "--json", "red"],
                ParsedArguments(
                    commandPath: ["query"], options: ["server": ["h:1"]], flags: ["json"], positionals: ["red"])
            ),
            (
                ["query", "--server=h:1", "red"],
                ParsedArguments(
                    commandPath: ["query"], options: ["server": ["h:1"]], positionals: ["red"])
            ),
            (
                ["query", "-l", "a", "-lb", "--labels=c"],
                ParsedArguments(
                    commandPath: ["query"], options: ["labels": ["a", "b", "c"]])
            ),
            (["query", "--", "--json"], ParsedArguments(commandPath: ["query"], positionals: ["--json"])),
            (
                ["routes", "explain", "music://x"],
                ParsedArguments(
                    commandPath: ["routes", "explain"], positionals: ["music://x"])
            ),
        ] as [([String], ParsedArguments)])
    func parsesValidCommandLines(arguments: [String], expected: ParsedArguments) throws {
        #expect(try parser.parse(arguments) == .run(expected))
    }

    @Test(
        "help is reachable as a flag anywhere or as a leading word",
        arguments: [
            (["--help"], [String]()),
            (["query", "--help"], ["query"]),
            (["query", "--server", "x", "-h"], ["query"]),
            (["help", "routes", "check"], ["routes", "check"]),
            (["routes", "-h"], ["routes"]),
        ] as [([String], [String])])
    func helpIsRecognised(arguments: [String], path: [String]) throws {
        #expect(try parser.parse(arguments) == .help(commandPath: path))
    }

    @Test(
        "usage errors name the problem and suggest the nearest name",
        arguments: [
            (["qurey"], "unknown command 'qurey'; did you mean 'query'?"),
            (["query", "--sever", "x"], "unknown option '--sever'; did you mean '--server'?"),
            (["query", "--server"], "missing value for --server ADDR"),
            (["query", "--json=yes"], "--json takes no value"),
            (["query", "--server", "a", "--server", "b"], "--server given more than once"),
            (["query", "a", "b"], "unexpected argument 'b'"),
            (["routes"], "missing subcommand (one of: check, explain)"),
            (["routes", "explain"], "missing argument URL"),
            (["routes", "chek"], "unknown command 'chek'; did you mean 'check'?"),
            (["query", "-x"], "unknown option '-x'"),
            (["zzzzzz"], "unknown command 'zzzzzz'"),
        ] as [([String], String)])
    func rejectsBadCommandLines(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try parser.parse(arguments) }
        do {
            _ = try parser.parse(arguments)
        } catch {
            #expect(error.message == message)
        }
    }

    @Test("help text lists arguments, options and subcommands")
    func helpText() throws {
        let formatter = HelpFormatter(executableName: "tool")
        let query = try #require(parser.command(at: ["query"]))
        #expect(
            formatter.help(for: query, path: ["query"]) == """
                OVERVIEW: Run a query.

                USAGE: tool query [<options>] [<text>]

                ARGUMENTS:
                  <text>                  Text.

                OPTIONS:
                  --server <addr>         The server.
                  -l, --labels <value>    Labels.
                  --json                  JSON output.
                  -h, --help              Show help information.

                """)
        let routes = try #require(parser.command(at: ["routes"]))
        #expect(formatter.help(for: routes, path: ["routes"]).contains("  check                   Check routes.\n"))
    }

    @Test(
        "edit distance counts a swap of neighbours as one edit",
        arguments: [("", "abc", 3), ("kitten", "sitting", 3), ("same", "same", 0), ("qurey", "query", 1)])
    func editDistanceIsLevenshtein(a: String, b: String, distance: Int) {
        #expect(editDistance(a, b) == distance)
    }
}
