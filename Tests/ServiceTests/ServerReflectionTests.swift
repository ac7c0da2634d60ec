import Foundation
import Testing

/// `vi-continue serve` answers gRPC server reflection as generic tools ask for it: grpcio's own
/// v1alpha descriptor database and a v1 stub list the services served and resolve every message
/// type the methods reach from the server's answers alone; over HTTP/1.1 (Connect, gRPC-Web)
/// the streaming method is refused as UNIMPLEMENTED.
@Suite struct ServerReflectionTests {
    @Test("grpcio's reflection clients list the services and resolve every method's types")
    func grpcioReflectionClients() async throws {
        let serve = try ServeCommandTests.ServeProcess()
        defer { _ = serve.terminate() }
        let output = try await PythonPeer.run("reflection_client.py", ["127.0.0.1:\(serve.port)"])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") }.count == 4)
    }
}
