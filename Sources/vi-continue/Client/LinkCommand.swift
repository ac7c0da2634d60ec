import ArgumentParsing
import SearchAPI

/// `vi-continue link`: the canonical URLs of an entity.
enum LinkCommand {
    static let spec = CommandSpec(
        name: "link",
        abstract: "Print the canonical URLs (app URL, universal link) of a type:id entity.",
        discussion: """
            Exits 1 when no route opens the entity type, 2 when the id does not fit the route's
            parameter (for example a slug with capitals). Works offline on the bundled demo route
            table or --routes FILE; --server asks a server's Link instead.

            EXAMPLES:
              vi-continue link album:abbey-road
              vi-continue link concert:1042 --json
              vi-continue link artist:the-beatles --routes Examples/demo/routes.json
            """,
        options: [ClientOptions.routes] + ClientOptions.remote,
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("ENTITY", help: "The entity as type:id.")])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            let entity = try EntityArgument.parse(arguments.positionals[0])
            let backend = try ClientOptions.routeBackend(arguments)
            return try await withBackend(backend) { backend throws(CommandFailure) in
                let link = try await backend.perform { try await $0.link(LinkRequest(target: .entity(entity))) }
                if arguments.flag("json") {
                    print(RouteOutput.json(link, entity: entity).rendered)
                } else {
                    print(RouteOutput.text(link))
                }
                return ExitCode.ok
            }
        }
    }
}
