import ArgumentParsing
import SearchAPI

/// `vi-continue query`: the system sheet for a descriptor.
enum QueryCommand {
    static let spec = CommandSpec(
        name: "query",
        abstract: "Ask for the system sheet's results: labels, an image or a print → ranked mixed results.",
        discussion: """
            Prints each result's type, title, subtitle, how it matched (text, image with its
            distance, or related to the result that brought it in) and its deep link. Exits 1 when
            nothing matched: an empty sheet is an honest answer, never padded.

            Against a server (--server, default 127.0.0.1:50051) or in this process on a catalog
            (--catalog FILE, with --routes FILE or the bundled demo table for the links).

            --batch FILE answers many queries: one JSON descriptor per line, {"labels": ["a", "b"],
            "image": "photo.png", "limit": 5, "max_distance": 0.4} (image paths relative to the batch
            file), one JSON line out per query in the same order, {"line": N, "results": […]} or
            {"line": N, "error": "…"} for a line that cannot be asked. Exits 0 unless the batch file
            itself cannot be read.

            EXAMPLES:
              vi-continue query --labels guitar,red
              vi-continue query --image Examples/demo/photos/cover.jpg --source camera --limit 5
              vi-continue query --catalog Examples/demo/catalog.jsonl --labels concert --json
              vi-continue query --catalog my.jsonl --batch queries.jsonl --json
            """,
        options: DescriptorOptions.specs + [
            OptionSpec("limit", valueName: "N", help: "At most N results (default 10, at most 20)."),
            OptionSpec("max-distance", valueName: "D", help: "The largest feature-print distance of an image match."),
            OptionSpec("batch", valueName: "FILE", help: "Answer one JSON descriptor per line (- for stdin)."),
            ClientOptions.catalog, ClientOptions.routes,
        ] + ClientOptions.remote,
        flags: [ClientOptions.json])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            if let batch = arguments.value("batch") {
                for name in ["labels", "image", "print-file", "limit", "max-distance"]
                where arguments.value(name) != nil {
                    throw .usage("--\(name) cannot be combined with --batch; put it in the batch lines")
                }
                let lines = try QueryBatch.readLines(batch)
                let backend = try ClientOptions.searchBackend(arguments)
                return try await withBackend(backend) { backend throws(CommandFailure) in
                    await QueryBatch.run(lines, backend: backend)
                }
            }
            var request = QueryRequest(descriptor: try DescriptorOptions.descriptor(arguments))
            if let limit = arguments.value("limit") {
                guard let number = UInt32(limit), number > 0 else { throw .usage("--limit must be a whole number ≥ 1") }
                request.limit = number
            }
            request.maxDistance = try maxDistance(arguments)
            let backend = try ClientOptions.searchBackend(arguments)
            return try await withBackend(backend) { backend throws(CommandFailure) in
                let response = try await backend.perform { try await $0.query(request) }
                if arguments.flag("json") {
                    print(JSONValue.object([("results", .array(response.results.map(SearchOutput.json)))]).rendered)
                } else {
                    print(
                        response.results.isEmpty ? "no results" : SearchOutput.table(response.results, numbered: true))
                }
                return response.results.isEmpty ? ExitCode.notFound : ExitCode.ok
            }
        }
    }

    /// `--max-distance`, if given.
    static func maxDistance(_ arguments: ParsedArguments) throws(CommandFailure) -> Float? {
        guard let distance = arguments.value("max-distance") else { return nil }
        guard let number = Float(distance), number.isFinite, number >= 0 else {
            throw .usage("--max-distance must be a number ≥ 0")
        }
        return number
    }
}
