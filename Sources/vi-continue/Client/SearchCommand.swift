import ArgumentParsing
import SearchAPI

/// `vi-continue search SESSION`: one refinement of a captured session.
enum SearchCommand {
    static let spec = CommandSpec(
        name: "search",
        abstract: "Refine a captured session: text, chips, types, categories, filters, sort, pages.",
        discussion: """
            Each call carries the whole refinement (nothing is remembered from the previous one), so
            repeat the filters when asking for the next page with --page-token. Chips are on unless
            --chip-off turns them off; --chip-on keeps one on (an error with --chip-off of the same
            chip). Several --attr values of one attribute match any of them; --range takes lo..hi
            with either bound left out for an open range. The answer lists the attribute facets
            whose values count the most hits; --facet lists one it named under "more facets".

            Sessions live in the server that captured them; an in-process --catalog session ends
            with its process, so search needs --server. Exits 1 for an unknown or expired session.

            EXAMPLES:
              vi-continue search 3f2a… --type album --category Music/Rock
              vi-continue search 3f2a… --chip-off red --attr city=Berlin --range year=1990..1999
              vi-continue search 3f2a… --sort year:desc --page-size 5 --json
              vi-continue search 3f2a… --max-facets 5 --facet season
              vi-continue search 3f2a… --type album --page-token 'NEXT-TOKEN'
            """,
        options: [
            OptionSpec("text", valueName: "TEXT", help: "Free text replacing the captured query text."),
            OptionSpec("chip-on", valueName: "CHIP", help: "Keep this label chip on (repeatable).", repeats: true),
            OptionSpec("chip-off", valueName: "CHIP", help: "Turn this label chip off (repeatable).", repeats: true),
            OptionSpec("type", valueName: "TYPE", help: "Only this entity type (repeatable).", repeats: true),
            OptionSpec(
                "category", valueName: "PATH", help: "Only this category or below, e.g. Music/Rock (repeatable).",
                repeats: true),
            OptionSpec("attr", valueName: "NAME=VALUE", help: "Attribute equal to VALUE (repeatable).", repeats: true),
            OptionSpec(
                "range", valueName: "NAME=LO..HI", help: "Numeric attribute within LO..HI, inclusive (repeatable).",
                repeats: true),
            OptionSpec(
                "sort", valueName: "ORDER", help: "relevance (default), title, title:desc, NAME:asc or NAME:desc."),
            OptionSpec("page-size", valueName: "N", help: "Results per page (default: the session's)."),
            OptionSpec("page-token", valueName: "TOKEN", help: "The next page token of the previous answer."),
            maxFacetsOption,
            OptionSpec(
                "facet", valueName: "NAME", help: "List this attribute's facet whatever the others count (repeatable).",
                repeats: true),
            ClientOptions.catalog,
        ] + ClientOptions.remote,
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("SESSION", help: "The session id printed by capture.")])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            if arguments.value("catalog") != nil {
                throw .usage(
                    "search needs a server (--server): a session captured in-process with --catalog ends with "
                        + "its process")
            }
            let request = try self.request(arguments)
            let backend = try ClientOptions.remoteBackend(arguments)
            return try await withBackend(backend) { backend throws(CommandFailure) in
                let state = try await backend.perform { try await $0.search(request) }
                print(arguments.flag("json") ? SearchOutput.json(state).rendered : SearchOutput.text(state))
                return ExitCode.ok
            }
        }
    }

    /// The Search request the flags describe.
    static func request(_ arguments: ParsedArguments) throws(CommandFailure) -> SearchRequest {
        var request = SearchRequest(sessionID: arguments.positionals[0])
        guard !request.sessionID.isEmpty else { throw .usage("SESSION must not be empty") }
        request.query = arguments.value("text")
        let on = Set(arguments.values("chip-on"))
        var off: [String] = []
        for chip in arguments.values("chip-off") where !off.contains(chip) {
            if on.contains(chip) { throw .usage("chip '\(chip)' is given both --chip-on and --chip-off") }
            off.append(chip)
        }
        request.disabledLabels = off
        request.entityTypes = arguments.values("type")
        request.categories = arguments.values("category")
        request.filters = try SearchFilters.filters(equal: arguments.values("attr"), ranges: arguments.values("range"))
        if let sort = arguments.value("sort") { request.sort = try SearchFilters.sort(sort) }
        request.pageSize = try pageSize(arguments) ?? 0
        request.pageToken = arguments.value("page-token") ?? ""
        request.maxFacets = try maxFacets(arguments) ?? 0
        request.includeFacets = arguments.values("facet")
        return request
    }

    /// `--max-facets`, of capture and search.
    static let maxFacetsOption = OptionSpec(
        "max-facets", valueName: "N",
        help: "The most attribute facets listed, those counting the most hits (default 20).")

    /// `--max-facets`, checked.
    static func maxFacets(_ arguments: ParsedArguments) throws(CommandFailure) -> UInt32? {
        guard let text = arguments.value("max-facets") else { return nil }
        guard let number = UInt32(text), number > 0 else { throw .usage("--max-facets must be a whole number ≥ 1") }
        return number
    }

    /// `--page-size`, checked.
    static func pageSize(_ arguments: ParsedArguments) throws(CommandFailure) -> UInt32? {
        guard let text = arguments.value("page-size") else { return nil }
        guard let number = UInt32(text), number > 0 else { throw .usage("--page-size must be a whole number ≥ 1") }
        return number
    }
}
