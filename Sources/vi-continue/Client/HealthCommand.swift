import ArgumentParsing
import ContinueService
import SearchAPI
import WireProtocol

/// `vi-continue health`: asks a server whether it serves.
enum HealthCommand {
    static let spec = CommandSpec(
        name: "health",
        abstract: "Check that a server is serving (grpc.health.v1).",
        discussion: """
            Exits 0 when the server (or the named service) is SERVING, 1 when it answers anything
            else or does not know the service, 3 when it cannot be reached.

            EXAMPLES:
              vi-continue health
              vi-continue health --server unix:/tmp/vi-continue.sock --json
            """,
        options: [
            OptionSpec("server", valueName: "ADDR", help: "host:port or unix:PATH (default 127.0.0.1:50051)."),
            OptionSpec("service", valueName: "NAME", help: "A service name; empty asks about the server."),
            OptionSpec("timeout", valueName: "SECONDS", help: "Give up after this long (default 5)."),
        ],
        flags: [FlagSpec("json", help: "Print one JSON object.")])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let settings = Settings(arguments)
        let address = settings.value("server") ?? "127.0.0.1:50051"
        guard let target = ServiceClient.target(parsing: address) else {
            writeError("error: --server '\(address)' is not host:port or unix:PATH")
            return ExitCode.usage
        }
        guard let seconds = Double(settings.value("timeout") ?? "5"), seconds > 0 else {
            writeError("error: --timeout must be a positive number of seconds")
            return ExitCode.usage
        }
        let service = arguments.value("service") ?? ""
        let client = ServiceClient(target: target)
        let outcome: Result<Health.CheckResponse, any Error>
        do {
            outcome = .success(
                try await client.checkHealth(
                    Health.CheckRequest(service: service), options: CallOptions(timeout: .seconds(seconds))))
        } catch {
            outcome = .failure(error)
        }
        await client.close()
        do {
            let response = try outcome.get()
            let name = statusName(response.status)
            if arguments.flag("json") {
                print(
                    JSONValue.object([
                        ("server", .string(address)), ("service", .string(service)), ("status", .string(name)),
                    ]).rendered)
            } else {
                print(name)
            }
            return response.status == .serving ? ExitCode.ok : ExitCode.notFound
        } catch let error as RPCError where error.code == .notFound {
            writeError("error: \(address) does not know the service '\(service)'")
            return ExitCode.notFound
        } catch {
            writeError("error: \(address): \(error)")
            return ExitCode.rpcFailure
        }
    }

    static func statusName(_ status: Health.CheckResponse.ServingStatus) -> String {
        switch status {
        case .serving: "SERVING"
        case .notServing: "NOT_SERVING"
        case .serviceUnknown: "SERVICE_UNKNOWN"
        case .unknown: "UNKNOWN"
        case .unrecognized(let value): "UNRECOGNIZED(\(value))"
        }
    }
}
