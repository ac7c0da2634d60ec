import ArgumentParsing
import DeepLinkRouter

/// `vi-continue url parse`: the WHATWG parse of URLs, as the router sees them.
enum URLCommand {
    static let parse = CommandSpec(
        name: "parse",
        abstract: "Parse URLs as the WHATWG URL Standard (and the router) does.",
        discussion: """
            Prints the components with the URL API's names: href, protocol, username, password,
            host, hostname, port, pathname, search, hash. An invalid URL prints its error and exits 1;
            with --json it prints {"input": …, "error": …}.

            With - as the URL, reads one URL per line from standard input and answers each with one
            line (one JSON object per line with --json), never stopping at a bad one; exits 0.

            EXAMPLES:
              vi-continue url parse 'HTTPS://Example.COM:443/a/../b?q#f'
              vi-continue url parse 'music://album/abbey-road' --json
              printf 'https://a.test/\\nhttp://[::1\\n' | vi-continue url parse - --json
            """,
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("URL", help: "The URL, or - to read one per line from stdin.")])

    static let spec = CommandSpec(name: "url", abstract: "Work with URLs.", subcommands: [parse])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let json = arguments.flag("json")
        let parser = URLParser()
        let input = arguments.positionals[0]
        guard input == "-" else {
            let (text, ok) = answer(input, parser: parser, json: json)
            if ok || json { print(text) }
            if !ok { writeError("error: \(input.debugDescription) is not a valid URL: \(text)") }
            return ok ? ExitCode.ok : ExitCode.notFound
        }
        while let line = readLine(strippingNewline: true) {
            let (text, ok) = answer(line, parser: parser, json: json)
            print(json || ok ? text : "\(line.debugDescription): error: \(text)")
            if !json, ok { print("") }
        }
        return ExitCode.ok
    }

    /// One URL's answer: JSON, aligned fields, or (for an invalid URL in text mode) the error.
    private static func answer(_ input: String, parser: URLParser, json: Bool) -> (String, Bool) {
        do {
            let url = try parser.parse(input)
            if json {
                return (JSONValue.object(url.components.map { ($0.name, .string($0.value)) }).rendered, true)
            }
            var fields = FieldList()
            for (name, value) in url.components { fields.append(name, value) }
            return (fields.rendered, true)
        } catch {
            if json {
                return (
                    JSONValue.object([("input", .string(input)), ("error", .string(error.message))]).rendered, false
                )
            }
            return (error.message, false)
        }
    }
}
