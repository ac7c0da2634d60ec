import ContinueService
import Foundation
import Testing
import WireProtocol

/// Who may change the catalog, decided per call from its peer and metadata.
@Suite struct WriteGuardTests {
    static let token = try! WriteToken("s3cret-token")

    static func context(peer: String, authorization: String? = nil) -> ServerContext {
        var metadata: Metadata = [:]
        if let authorization { metadata.add("authorization", authorization) }
        return ServerContext(path: "/vicontinue.v1.VisualSearch/UpsertEntities", requestMetadata: metadata, peer: peer)
    }

    static func code(_ guard_: WriteGuard, _ context: ServerContext) -> Status.Code? {
        do {
            try guard_.check(context)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("with a token: TCP needs it, the Unix socket and in-process callers do not")
    func withToken() {
        let guard_ = WriteGuard(token: Self.token)
        for peer in ["ipv4:127.0.0.1:5000", "ipv6:[::1]:5000"] {
            #expect(Self.code(guard_, Self.context(peer: peer)) == .unauthenticated)
            #expect(Self.code(guard_, Self.context(peer: peer, authorization: "Basic czNjcmV0")) == .unauthenticated)
            #expect(Self.code(guard_, Self.context(peer: peer, authorization: "Bearer")) == .unauthenticated)
            #expect(Self.code(guard_, Self.context(peer: peer, authorization: "Bearer wrong")) == .permissionDenied)
            #expect(
                Self.code(guard_, Self.context(peer: peer, authorization: "Bearer s3cret-toke")) == .permissionDenied)
            #expect(
                Self.code(guard_, Self.context(peer: peer, authorization: "Bearer s3cret-token2")) == .permissionDenied)
            #expect(Self.code(guard_, Self.context(peer: peer, authorization: "Bearer s3cret-token")) == nil)
            #expect(Self.code(guard_, Self.context(peer: peer, authorization: "bearer  s3cret-token")) == nil)
        }
        #expect(Self.code(guard_, Self.context(peer: "unix:/run/vi-continue.sock")) == nil)
        #expect(Self.code(guard_, Self.context(peer: "in-process")) == nil)
    }

    @Test("without a token: TCP writes are refused with how to configure one; local writes pass")
    func withoutToken() throws {
        let guard_ = WriteGuard(token: nil)
        let error = try #require(throws: RPCError.self) {
            try guard_.check(Self.context(peer: "ipv4:10.0.0.5:4000", authorization: "Bearer s3cret-token"))
        }
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("--write-token-file"))
        #expect(error.message.contains("Unix socket"))
        #expect(Self.code(guard_, Self.context(peer: "unix:/tmp/vi.sock")) == nil)
    }

    @Test("the refusal never echoes what was offered")
    func refusalsDoNotEchoTheToken() throws {
        let guard_ = WriteGuard(token: Self.token)
        let error = try #require(throws: RPCError.self) {
            try guard_.check(Self.context(peer: "ipv4:127.0.0.1:1", authorization: "Bearer s3cret-tokeX"))
        }
        #expect(!error.message.contains("s3cret"))
    }

    @Test("matching compares whole tokens: prefixes, extensions and same-length guesses fail")
    func matching() {
        let token = Self.token
        #expect(token.matches(Array("s3cret-token".utf8)))
        #expect(!token.matches(Array("s3cret-token ".utf8)))
        #expect(!token.matches(Array("s3cret-tokem".utf8)))
        #expect(!token.matches([UInt8]()))
        #expect(!token.matches(Array("S3CRET-TOKEN".utf8)))
    }

    @Test("a token file: its line is the token; empty, spaced, unreadable or huge files are named errors")
    func tokenFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ contents: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let good = try WriteToken(contentsOfFile: try file("good", "  abc.DEF-123_~\r\n"))
        #expect(good.bytes == Array("abc.DEF-123_~".utf8))
        for (name, contents, reason) in [
            ("empty", "\n", "empty"), ("spaced", "two words\n", "printable ASCII"),
            ("huge", String(repeating: "x", count: 70_000), "larger than 64 KiB"),
            ("long", String(repeating: "x", count: 1025), "longer than 1024"),
        ] {
            let path = try file(name, contents)
            let error = try #require(throws: WriteTokenError.self) { try WriteToken(contentsOfFile: path) }
            #expect(error.message.contains(path) && error.message.contains(reason), "\(error)")
        }
        let missing = directory.appendingPathComponent("missing").path
        let error = try #require(throws: WriteTokenError.self) { try WriteToken(contentsOfFile: missing) }
        #expect(error.message.contains(missing) && error.message.contains("No such file"))
    }
}
