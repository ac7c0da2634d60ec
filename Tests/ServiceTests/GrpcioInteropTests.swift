import ContinueService
import Foundation
import Testing
import WireProtocol

/// A stock grpcio client, with stubs generated from our own protos at test time, against our
/// server over TCP and over the Unix socket.
@Suite(.serialized) struct GrpcioClientInteropTests {
    static let cases = [
        "empty_unary", "large_unary", "client_compressed_unary", "server_compressed_unary", "server_streaming",
        "server_compressed_streaming", "custom_metadata", "status_code_and_message", "special_status_message",
        "unimplemented_method", "unimplemented_service", "cancel_after_first_response",
        "timeout_on_sleeping_server", "concurrent_large_unary", "client_streaming", "ping_pong", "empty_stream",
        "cancel_after_begin", "cancel_after_first_full_duplex_response", "timeout_on_sleeping_full_duplex",
    ]

    @Test("every interop case passes over TCP and over the Unix socket", arguments: ["tcp", "unix"])
    func interopCasesPass(transport: String) async throws {
        let socketPath = NSTemporaryDirectory() + "vi-continue-interop-\(getpid())-\(transport).sock"
        try await withTestServer(methods: InteropTestService().methods, unixSocketPath: socketPath) { addresses in
            let target = transport == "tcp" ? "127.0.0.1:\(addresses.tcpPort!)" : "unix:\(socketPath)"
            let output = try await PythonPeer.run("interop_client.py", [target] + Self.cases)
            let passed = output.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.map { $0.dropFirst(5) }
            #expect(Set(passed.map(String.init)) == Set(Self.cases), "\(output.stdout)\n\(output.stderr)")
            #expect(output.status == 0)
        }
    }
}

/// Runs `body` against a server on an ephemeral loopback port (and a Unix socket, if asked),
/// then shuts the server down gracefully and waits for it.
func withTestServer<Result: Sendable>(
    methods: [ServerMethod], unixSocketPath: String? = nil,
    _ body: @Sendable (ListeningAddresses) async throws -> Result
) async throws -> Result {
    var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0))
    configuration.unixSocketPath = unixSocketPath
    let server = GRPCServer(configuration: configuration, methods: methods)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { server.beginGracefulShutdown() }
        let addresses = try await server.waitUntilListening()
        let result = try await body(addresses)
        server.beginGracefulShutdown()
        try await group.waitForAll()
        return result
    }
}
