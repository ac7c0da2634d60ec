import ArgumentParsing
import SearchAPI

/// `vi-continue capture`: "More results" — a descriptor stored as a session, returned filled in.
enum CaptureCommand {
    static let spec = CommandSpec(
        name: "capture",
        abstract: "Capture a descriptor into a search session and print the filled-in search.",
        discussion: """
            Prints the session id, the query text, the label chips, the facets with counts, page 1,
            the next page token and the total hits. Refine the session with
            'vi-continue search SESSION …' (against the same server: an in-process --catalog
            session ends with this process).

            EXAMPLES:
              vi-continue capture --labels guitar,red
              vi-continue capture --image photo.jpg --source camera --page-size 5 --json
              vi-continue capture --catalog Examples/demo/catalog.jsonl --labels jazz
            """,
        options: DescriptorOptions.specs + [
            OptionSpec("page-size", valueName: "N", help: "Results per page (default 20, at most 100)."),
            SearchCommand.maxFacetsOption,
            OptionSpec(
                "max-distance", valueName: "D",
                help: "The largest feature-print distance of an image match, kept for every page."),
            ClientOptions.catalog, ClientOptions.routes,
        ] + ClientOptions.remote,
        flags: [ClientOptions.json])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            var request = CaptureRequest(descriptor: try DescriptorOptions.descriptor(arguments))
            request.pageSize = try SearchCommand.pageSize(arguments) ?? 0
            request.maxFacets = try SearchCommand.maxFacets(arguments) ?? 0
            request.maxDistance = try QueryCommand.maxDistance(arguments)
            let backend = try ClientOptions.searchBackend(arguments)
            return try await withBackend(backend) { backend throws(CommandFailure) in
                let state = try await backend.perform { try await $0.capture(request) }
                print(arguments.flag("json") ? SearchOutput.json(state).rendered : SearchOutput.text(state))
                return ExitCode.ok
            }
        }
    }
}
