import ArgumentParsing
import SearchAPI
import WireProtocol

/// `vi-continue open`: what a tap on a URL or an open-intent target opens.
enum OpenCommand {
    static let spec = CommandSpec(
        name: "open",
        abstract: "Resolve a URL or a type:id target to the screen it opens.",
        discussion: """
            Prints the destination: screen, typed parameters, entity and canonical URL. A URL no
            route matches opens the fallback screen, which is said, with the reason (exit 0). A
            refused URL (a forbidden scheme, credentials, a host off the allow-list, an invalid URL)
            or an unknown target prints the reason and exits 1.

            Works offline on the bundled demo route table or --routes FILE; --server asks a
            server's Resolve instead. An argument with "://" or a browser scheme (javascript:, data:,
            …) is a URL; otherwise type:id is an open-intent target.

            EXAMPLES:
              vi-continue open 'music://album/abbey-road?tab=credits'
              vi-continue open https://music.example.com/concert/1042
              vi-continue open artist:the-beatles --json
              vi-continue open album:abbey-road --server 127.0.0.1:50051
            """,
        options: [ClientOptions.routes] + ClientOptions.remote,
        flags: [ClientOptions.json],
        positionals: [PositionalSpec("TARGET", help: "A URL, or an entity as type:id.")])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        await runClientCommand { () throws(CommandFailure) in
            let input = arguments.positionals[0]
            var request = ResolveRequest()
            request.target = EntityArgument.isURL(input) ? .url(input) : .entity(try EntityArgument.parse(input))
            let backend = try ClientOptions.routeBackend(arguments)
            return try await withBackend(backend) { backend throws(CommandFailure) in
                let destination: Destination
                do throws(CommandFailure) {
                    destination = try await backend.perform { try await $0.resolve(request) }
                } catch {
                    guard error.exitCode == ExitCode.notFound || error.exitCode == ExitCode.usage else { throw error }
                    // A refusal is the answer to this command, not a misuse of it.
                    if arguments.flag("json") {
                        print(
                            JSONValue.object([
                                ("input", .string(input)), ("refused", .bool(true)), ("reason", .string(error.message)),
                            ]).rendered)
                    }
                    throw .notFound("refused \(input): \(error.message)")
                }
                if arguments.flag("json") {
                    print(RouteOutput.json(destination, input: input).rendered)
                } else {
                    print(RouteOutput.text(destination))
                }
                return ExitCode.ok
            }
        }
    }
}
