import ContinueService
import Foundation
import SearchAPI
import Testing
import WireProtocol

/// The write guard on a real `serve`, reached by a stock grpcio client over TCP and over the Unix
/// socket: writes need the token on TCP only, reads never need it, and the token is never logged.
@Suite(.serialized) struct WriteAuthorizationTests {
    /// A token file in a fresh directory, mode 0600.
    struct TokenFile {
        let directory: URL
        let path: String
        let token: String

        init(token: String = "tok-\(UUID().uuidString)") throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("vi-auth-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("token").path
            self.token = token
            try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }

        var socketPath: String { directory.appendingPathComponent("serve.sock").path }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// The outcome of one case of `write_auth.py`.
    struct Outcome: Decodable {
        var upsert: String
        var query: String
        var delete: String
        var found: Int?
        var messages: [String]
    }

    static func attempt(_ target: String, token: String? = nil) async throws -> [String: Outcome] {
        let output = try await PythonPeer.run("write_auth.py", [target] + (token.map { [$0] } ?? []))
        #expect(output.status == 0, "\(output.stderr)")
        return try JSONDecoder().decode([String: Outcome].self, from: Data(output.stdout.utf8))
    }

    @Test("with --write-token-file: TCP writes need the token, the socket's do not, reads never do")
    func withToken() async throws {
        let file = try TokenFile()
        defer { file.remove() }
        let server = try ServerProcess(["--write-token-file", file.path, "--unix-socket", file.socketPath])
        let tcp = try await Self.attempt("127.0.0.1:\(server.port)", token: file.token)
        #expect(tcp["none"]?.upsert == "UNAUTHENTICATED" && tcp["none"]?.delete == "UNAUTHENTICATED")
        #expect(tcp["none"]?.messages.first?.contains("authorization: Bearer") == true)
        #expect(tcp["wrong"]?.upsert == "PERMISSION_DENIED" && tcp["wrong"]?.delete == "PERMISSION_DENIED")
        for name in ["right", "right-lowercase-scheme"] {
            let outcome = try #require(tcp[name])
            #expect(outcome.upsert == "OK" && outcome.delete == "OK", "\(name): \(outcome.messages)")
            #expect(outcome.found == 1, "\(name): the upserted entity was not found")
        }
        for outcome in tcp.values { #expect(outcome.query == "OK") }
        #expect(tcp["none"]?.found == 0, "a refused upsert changed the catalog")

        let unix = try await Self.attempt("unix:" + file.socketPath)
        #expect(unix["none"]?.upsert == "OK" && unix["none"]?.delete == "OK" && unix["none"]?.found == 1)

        var info = stat()
        #expect(lstat(file.socketPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        server.send(SIGTERM)
        #expect(await server.waitForExit() == 0)
        let log = server.stderrLines.joined(separator: "\n")
        #expect(!log.contains(file.token), "the token was logged")
        #expect(!log.contains("warning"), "\(log)")
        #expect(server.callLines.contains { $0.contains("UpsertEntities") && $0.contains("UNAUTHENTICATED") })
    }

    @Test("without a token: TCP writes are PERMISSION_DENIED with how to configure one; the socket's pass")
    func withoutToken() async throws {
        let file = try TokenFile()
        defer { file.remove() }
        let server = try ServerProcess(["--unix-socket", file.socketPath])
        let tcp = try await Self.attempt("127.0.0.1:\(server.port)", token: file.token)
        for (name, outcome) in tcp {
            #expect(outcome.upsert == "PERMISSION_DENIED" && outcome.delete == "PERMISSION_DENIED", "\(name)")
            #expect(outcome.query == "OK" && outcome.found == 0, "\(name)")
            #expect(outcome.messages.first?.contains("--write-token-file") == true, "\(name)")
        }
        let unix = try await Self.attempt("unix:" + file.socketPath)
        #expect(unix["none"]?.upsert == "OK" && unix["none"]?.found == 1)
    }

    @Test("listening beyond loopback without a token warns at start; with one it does not")
    func warnsOffLoopbackWithoutToken() async throws {
        let bare = try ServerProcess(["--host", "0.0.0.0"])
        #expect(bare.stderrLines.contains { $0.contains("warning: listening on 0.0.0.0 with no --write-token-file") })
        bare.send(SIGTERM)
        _ = await bare.waitForExit()

        let file = try TokenFile()
        defer { file.remove() }
        let guarded = try ServerProcess(["--host", "0.0.0.0", "--write-token-file", file.path])
        #expect(!guarded.stderrLines.contains { $0.contains("warning") })
        guarded.send(SIGTERM)
        _ = await guarded.waitForExit()
    }

    @Test("a bad token file stops serve with exit 2, naming the file and the problem")
    func badTokenFile() async throws {
        let file = try TokenFile()
        defer { file.remove() }
        try "\n".write(toFile: file.path, atomically: true, encoding: .utf8)
        let (status, text) = try ServerProcess.failedStart(["--write-token-file", file.path])
        #expect(status == 2)
        #expect(text.contains("error: --write-token-file: the token file \(file.path): the token is empty"), "\(text)")
    }

    @Test("a token file others can read is used, with a warning")
    func looseTokenFileWarns() async throws {
        let file = try TokenFile()
        defer { file.remove() }
        chmod(file.path, 0o644)
        let server = try ServerProcess(["--write-token-file", file.path])
        #expect(server.stderrLines.contains { $0.contains("can be read by other users") })
        server.send(SIGTERM)
        _ = await server.waitForExit()
    }
}
