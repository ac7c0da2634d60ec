import ArgumentParsing
import ContinueService
import SearchAPI
import WireProtocol

/// `vi-continue demo`: the whole story, told by the real service through the real client.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Walk through a visual search continued in the app, on the bundled demo, and check each step.",
        discussion: """
            Starts the service in this process on a free loopback port (bundled demo catalog and
            routes, sessions in memory) and, through the gRPC client, walks the flow a person
            would: the system sheet for labels and for a picture, a tap resolved to its screen,
            "More results" captured into a session, a category and a filter with the facet
            counts following, the next page, and a capture the catalog knows nothing about that
            still opens a filled-in search.

            Every step checks what it claims. Exits 0 when all of them held, 1 when one did not
            (the failures are listed at the end), 2 when the demo data cannot be loaded.

            EXAMPLES:
              vi-continue demo
              VI_CONTINUE_DEMO_DIR=Examples/demo vi-continue demo
            """)

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let setup: ServiceSetup
        do {
            // Only the demo's own data: no --catalog/--routes here, and sessions in memory.
            setup = try ServiceSetup.load(Settings(ParsedArguments()), store: "memory")
        } catch {
            writeError("error: \(error)")
            return ExitCode.usage
        }
        let health = HealthService()
        let service = VisualSearchService(sessions: setup.sessions, router: setup.router)
        let server = GRPCServer(
            configuration: ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0)),
            methods: health.methods + service.methods)
        let report: DemoReport
        do {
            report = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                defer { server.beginGracefulShutdown() }
                let addresses = try await server.waitUntilListening()
                let port = addresses.tcpPort ?? 0
                let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: port))
                var report = DemoReport()
                await DemoStory(client: client, setup: setup).tell(address: "127.0.0.1:\(port)", into: &report)
                await client.close()
                health.stopWatching()
                server.beginGracefulShutdown()
                try await group.waitForAll()
                return report
            }
        } catch {
            writeError("error: the in-process server failed: \(error)")
            return ExitCode.rpcFailure
        }
        print("")
        if report.failures.isEmpty {
            print("All steps behaved as described.")
            return ExitCode.ok
        }
        print("\(report.failures.count) check(s) failed:")
        for failure in report.failures { print("  ✗ " + failure) }
        return ExitCode.notFound
    }
}
