import Testing

@testable import ArgumentParsing

/// Typed option declarations: one declaration gives the help line, the value (flag, then
/// environment, then default) and the error for a value that does not fit.
@Suite struct OptionTests {
    static let port = Option.integer(
        "port", valueName: "PORT", in: 0...65535, default: 50051, environmentVariable: "APP_PORT",
        summary: "The TCP port")
    static let interval = Option.number(
        "interval", valueName: "SECONDS", unit: "seconds", in: 0.01...1e9, default: 60,
        environmentVariable: "APP_INTERVAL", summary: "How often")
    static let level = Option.choice(
        "level", valueName: "LEVEL", among: ["error", "warn", "info"], default: "info", summary: "How much")
    static let file = Option<String?>.text("file", valueName: "FILE", defaultDescription: "the demo", summary: "A file")

    static func arguments(_ options: [String: [String]]) -> ParsedArguments {
        ParsedArguments(commandPath: ["serve"], options: options)
    }

    static func environment(_ variables: [String: String]) -> (String) -> String? { { variables[$0] } }

    @Test func theFlagWinsOverTheEnvironmentWhichWinsOverTheDefault() throws {
        let env = Self.environment(["APP_PORT": "7000"])
        #expect(try Self.port.value(in: Self.arguments(["port": ["6000"]]), environment: env) == 6000)
        #expect(try Self.port.value(in: Self.arguments([:]), environment: env) == 7000)
        #expect(try Self.port.value(in: Self.arguments([:])) == 50051)
        // An empty variable counts as unset; the last of repeated flags wins.
        #expect(try Self.port.value(in: Self.arguments([:]), environment: Self.environment(["APP_PORT": ""])) == 50051)
        #expect(try Self.port.value(in: Self.arguments(["port": ["1", "2"]])) == 2)
        #expect(try Self.interval.value(in: Self.arguments(["interval": ["0.2"]])) == 0.2)
        #expect(try Self.level.value(in: Self.arguments(["level": ["warn"]])) == "warn")
        #expect(try Self.file.value(in: Self.arguments([:])) == nil)
        #expect(try Self.file.value(in: Self.arguments(["file": ["a.jsonl"]])) == "a.jsonl")
    }

    @Test(
        "a value that does not fit names where it came from and what it must be",
        arguments: [
            (["port": ["70000"]], [:], "--port must be a whole number from 0 to 65535 (got '70000')"),
            (["port": ["x"]], [:], "--port must be a whole number from 0 to 65535 (got 'x')"),
            ([:], ["APP_PORT": "-1"], "APP_PORT must be a whole number from 0 to 65535 (got '-1')"),
            (
                ["interval": ["0"]], [:],
                "--interval must be a number of seconds from 0.01 to 1000000000 (got '0')"
            ),
            (
                [:], ["APP_INTERVAL": "nan"],
                "APP_INTERVAL must be a number of seconds from 0.01 to 1000000000 (got 'nan')"
            ),
            (["level": ["chatty"]], [:], "--level must be error, warn or info (got 'chatty')"),
            (["file": [""]], [:], "--file must be not empty (got '')"),
        ] as [([String: [String]], [String: String], String)])
    func misfits(options: [String: [String]], variables: [String: String], message: String) {
        let arguments = Self.arguments(options)
        let environment = Self.environment(variables)
        let error = #expect(throws: OptionValueError.self) {
            _ = try Self.port.value(in: arguments, environment: environment)
            _ = try Self.interval.value(in: arguments, environment: environment)
            _ = try Self.level.value(in: arguments, environment: environment)
            _ = try Self.file.value(in: arguments, environment: environment)
        }
        #expect(error?.description == message)
    }

    @Test func helpStatesTheDefaultFromTheDeclaration() {
        #expect(Self.port.spec.help == "The TCP port (default 50051).")
        #expect(Self.port.spec.valueName == "PORT")
        #expect(Self.interval.spec.help == "How often (default 60).")
        #expect(Self.level.spec.help == "How much (default info).")
        #expect(Self.file.spec.help == "A file (default the demo).")
        let formatted = HelpFormatter(executableName: "tool").help(
            for: CommandSpec(name: "serve", abstract: "Serve.", options: [Self.port.spec]), path: ["serve"])
        #expect(formatted.contains("  --port <port>           The TCP port (default 50051)."), "\(formatted)")
    }
}
