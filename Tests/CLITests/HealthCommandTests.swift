import Testing

/// `health` against a real server, in both output forms.
@Suite(.serialized) struct HealthCommandTests {
    @Test("health prints SERVING and exits 0; --json prints one object")
    func serving() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        #expect(try await Snapshot.run("health", ["health", "--server", server.address]).status == 0)
        #expect(try await Snapshot.run("health-json", ["health", "--server", server.address, "--json"]).status == 0)
    }

    @Test("health of a service the server does not know exits 1")
    func unknownService() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let output = try await CLI.run(["health", "--server", server.address, "--service", "no.such.Service"])
        #expect(output.status == 1)
        #expect(output.stderr == "error: \(server.address) does not know the service 'no.such.Service'\n")
    }
}
