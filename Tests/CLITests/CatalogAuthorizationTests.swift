import Foundation
import Testing

/// The catalog commands against a `serve` that guards writes: the token from `--token-file` or
/// `VI_CONTINUE_TOKEN_FILE` over TCP, none over serve's Unix socket, found by default.
@Suite(.serialized) struct CatalogAuthorizationTests {
    @Test("over TCP: no token exits 1 with UNAUTHENTICATED's reason, a wrong one exits 1, the right one writes")
    func tokenOverTCP() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let none = try await CLI.run(["catalog", "delete", "artist:the-neon-tides", "--server", server.address])
        #expect(none.status == 1)
        #expect(none.stderr.contains("need metadata 'authorization: Bearer <token>' (the CLI: --token-file)"))

        let wrongFile = server.directory.appendingPathComponent("wrong").path
        try "not-the-token\n".write(toFile: wrongFile, atomically: true, encoding: .utf8)
        let wrong = try await CLI.run([
            "catalog", "delete", "artist:the-neon-tides", "--server", server.address, "--token-file", wrongFile,
        ])
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "error: the write token does not match this server's\n")
        let still = try await CLI.run(["query", "--labels", "neon tides", "--json", "--server", server.address])
        #expect(still.stdout.contains(#""id":"the-neon-tides""#), "a refused delete removed the entity")

        let right = try await CLI.run([
            "catalog", "delete", "artist:the-neon-tides", "--server", server.address, "--token-file", server.tokenFile,
        ])
        #expect(right.status == 0, "\(right.stderr)")
        let gone = try await CLI.run(["query", "--labels", "neon tides", "--json", "--server", server.address])
        #expect(!gone.stdout.contains(#""id":"the-neon-tides""#))

        let byVariable = try await CLI.run(
            ["catalog", "upsert", "-", "--server", server.address],
            stdin: #"{"type": "artist", "id": "the-neon-tides", "title": "The Neon Tides"}"# + "\n",
            environment: server.tokenEnvironment)
        #expect(byVariable.status == 0, "\(byVariable.stderr)")
    }

    @Test("without --server the commands use serve's Unix socket when it is there, and need no token")
    func unixSocketByDefault() async throws {
        let server = try ServeProcess(unixSocket: true)
        defer { server.stop() }
        let socket = try #require(server.socketPath)
        let output = try await CLI.run(
            ["catalog", "delete", "artist:the-neon-tides", "--json"], environment: ["VI_CONTINUE_UNIX_SOCKET": socket])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains(#""applied":1"#))
        let gone = try await CLI.run(["query", "--labels", "neon tides", "--json", "--server", server.address])
        #expect(!gone.stdout.contains(#""id":"the-neon-tides""#))

        // With no socket there, the default is the TCP address, which nothing answers here.
        let fallback = try await CLI.run(
            ["catalog", "delete", "album:x", "--timeout", "1"],
            environment: ["VI_CONTINUE_UNIX_SOCKET": server.directory.appendingPathComponent("none.sock").path])
        #expect(fallback.status == 3)
        #expect(fallback.stderr.contains("cannot connect to 127.0.0.1:50051"))
    }

    @Test("an unreadable or empty --token-file is a usage error naming the file")
    func badTokenFile() async throws {
        let missing = try await CLI.run(["catalog", "delete", "album:x", "--token-file", "/nonexistent/token"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("error: --token-file: cannot read the token file /nonexistent/token: "))
        let directory = try TemporaryDirectory()
        let empty = directory.path + "/empty"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        let output = try await CLI.run(["catalog", "delete", "album:x", "--token-file", empty])
        #expect(output.status == 2)
        #expect(output.stderr == "error: --token-file: the token file \(empty): the token is empty\n")
    }
}
