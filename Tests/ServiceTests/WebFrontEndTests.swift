import Foundation
import Testing

/// `vi-continue serve` for browsers and plain HTTP clients on its gRPC port: a Python client
/// speaking Connect and gRPC-Web over HTTP/1.1, and through curl over HTTP/2 (checked with
/// protobuf's own classes), and the web shell in headless Chromium driven by selenium.
@Suite struct WebFrontEndTests {
    /// Runs a peer script against a fresh `serve` and checks that its `steps` steps all passed.
    private func peerPasses(_ script: String, _ arguments: [String] = [], steps: Int) async throws {
        let serve = try ServeCommandTests.ServeProcess()
        defer { _ = serve.terminate() }
        let output = try await PythonPeer.run(script, ["127.0.0.1:\(serve.port)"] + arguments)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") }.count == steps)
    }

    @Test("Connect, gRPC-Web, health, metrics, CORS, files and images over HTTP/1.1 on the gRPC port")
    func plainHTTPClients() async throws {
        try await peerPasses("web_client.py", steps: 9)
    }

    @Test("the same Connect, gRPC-Web, health, metrics, CORS, files and images over HTTP/2 (curl, prior knowledge)")
    func http2Clients() async throws {
        try await peerPasses("web_client.py", ["--http2"], steps: 9)
    }

    @Test("the web shell in Chromium: sheet, tap, more results with facets, pages, a photo, keyboard, phone width")
    func webShellInABrowser() async throws {
        try await peerPasses("web_shell_browser.py", steps: 10)
    }

    @Test("grpcio still speaks HTTP/2 on the port that also answers HTTP/1.1")
    func grpcStillWorks() async throws {
        try await peerPasses("search_client.py", steps: 6)
    }
}
