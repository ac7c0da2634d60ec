import Testing

/// Command lines that do not fit: exit 2 and a message on stderr naming the problem.
@Suite(.serialized) struct UsageErrorTests {
    @Test(
        "usage errors exit 2 and name the problem",
        arguments: [
            (["query"], "error: describe the capture with --labels, --image or --print-file"),
            (["query", "--labels", "a", "--limit", "0"], "error: --limit must be a whole number ≥ 1"),
            (["query", "--labels", "a", "--max-distance", "far"], "error: --max-distance must be a number ≥ 0"),
            (["query", "--labels", "a", "--source", "scanner"], "error: --source must be camera or screenshot"),
            (["query", "--image", "/nonexistent.png"], "error: --image: cannot read image /nonexistent.png"),
            (["query", "--print-file", "/nonexistent.json"], "error: --print-file: cannot read /nonexistent.json"),
            (["query", "--labels", "a", "--server", "nowhere"], "error: --server 'nowhere' is not host:port"),
            (["query", "--labels", "a", "--timeout", "-1"], "error: --timeout must be a positive number"),
            (
                ["query", "--labels", "a", "--catalog", CLI.catalog, "--server", "127.0.0.1:1"],
                "error: --server and --catalog exclude each other"
            ),
            (["query", "--labels", "a", "--catalog", "/nonexistent.jsonl"], "error: catalog /nonexistent.jsonl"),
            (["query", "--batch", "q.jsonl", "--labels", "a"], "error: --labels cannot be combined with --batch"),
            (["capture", "--labels", ",", "--catalog", CLI.catalog], "error: --labels needs at least one label"),
            (["search", "s", "--catalog", CLI.catalog], "error: search needs a server (--server)"),
            (["search", "s", "--range", "year=1990"], "error: --range 'year=1990' is not NAME=LO..HI"),
            (["search", "s", "--range", "year=a..b"], "error: --range 'year=a..b': 'a' is not a number"),
            (["search", "s", "--range", "year=2000..1990"], "error: --range 'year=2000..1990': 2000 is above 1990"),
            (["search", "s", "--attr", "=x"], "error: --attr '=x' is not NAME=VALUE"),
            (["search", "s", "--sort", "relevance:desc"], "error: --sort relevance is always best first"),
            (
                ["search", "s", "--chip-on", "a", "--chip-off", "a"],
                "error: chip 'a' is given both --chip-on and --chip-off"
            ),
            (["search", "s", "--page-size", "0"], "error: --page-size must be a whole number ≥ 1"),
            (["open", "just-a-word"], "error: 'just-a-word' is not type:id"),
            (["open", "album:x", "--routes", "/nonexistent.json"], "error: route table /nonexistent.json"),
            (["open", "album:x", "--server", "127.0.0.1:1", "--routes", CLI.routes], "error: --server and --routes"),
            (["link", "album"], "error: 'album' is not type:id"),
            (
                ["routes", "explain", "music://x", "--limit", "0"],
                "error: --limit must be a whole number from 1 to 100"
            ),
            (["catalog", "delete"], "error: name at least one entity as type:id"),
            (["catalog", "import", "/nonexistent.jsonl"], "error: cannot read catalog file /nonexistent.jsonl"),
            (["querry", "--labels", "a"], "error: unknown command 'querry'; did you mean 'query'?"),
            (["query", "--label", "a"], "error: unknown option '--label'; did you mean '--labels'?"),
            (["url", "parse"], "error: missing argument URL"),
        ])
    func usageError(arguments: [String], message: String) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == 2, "\(arguments): \(output.stderr)")
        #expect(output.stderr.hasPrefix(message), "\(arguments)")
        #expect(output.stdout.isEmpty)
    }

    @Test(
        "every client command's help has examples",
        arguments: [
            ["query"], ["capture"], ["search"], ["open"], ["link"], ["routes", "check"], ["routes", "explain"],
            ["url", "parse"], ["catalog", "import"], ["catalog", "upsert"], ["catalog", "delete"], ["health"],
        ])
    func help(command: [String]) async throws {
        let output = try await CLI.run(command + ["--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("EXAMPLES:\n  vi-continue \(command.joined(separator: " "))"))
    }

    @Test("query's help reads as recorded")
    func queryHelpSnapshot() async throws {
        #expect(try await Snapshot.run("help-query", ["query", "--help"]).status == 0)
        #expect(try await Snapshot.run("help-search", ["search", "--help"]).status == 0)
    }
}
