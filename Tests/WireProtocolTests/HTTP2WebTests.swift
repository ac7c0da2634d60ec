import Foundation
import H2TestClient
import Testing

@testable import WireProtocol

/// Connect, gRPC-Web, CORS, `/healthz` and `/metrics` over real HTTP/2 (nghttp2 on a socket):
/// answered as over HTTP/1.1, gRPC-Web's status in the body and no HTTP/2 trailers.
@Suite struct HTTP2WebTests {
    static func configuration(_ web: WebConfiguration = WebConfiguration(metrics: { "made_up_total 1\n" }))
        -> ServerConfiguration
    {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.web = web
        return configuration
    }

    /// A request on a fresh stream; the gRPC defaults RawH2Client sends are replaced or left out.
    static func request(
        _ client: RawH2Client, _ method: String, _ path: String, contentType: String? = nil, body: [UInt8] = [],
        headers: [(String, String)] = []
    ) async throws -> RawReply {
        try await client.call(
            path: path, body: body, extraHeaders: headers,
            replace: [
                ":method": method, ":authority": "127.0.0.1:50051", "content-type": contentType ?? "<none>",
                "te": "<none>",
            ])
    }

    static func frame(_ message: [UInt8]) -> [UInt8] {
        [0, 0, 0, 0, UInt8(message.count)] + message
    }

    @Test("gRPC-Web, binary and text: the message, then the status as a trailer frame in the body")
    func gRPCWeb() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            let binary = try await Self.request(
                client, "POST", "/test.Echo/Unary", contentType: "application/grpc-web+proto",
                body: Self.frame([1, 2, 3]), headers: [("x-grpc-web", "1"), ("x-trace", "abc")])
            #expect(binary.httpStatus == 200)
            #expect(binary.header("content-type") == "application/grpc-web+proto")
            #expect(binary.trailers.isEmpty, "no HTTP/2 trailers: \(binary.trailers)")
            #expect(binary.header("content-length") == String(binary.data.count))
            #expect(Array(binary.data.prefix(8)) == Self.frame([1, 2, 3]))
            let trailer = String(decoding: binary.data.dropFirst(13), as: UTF8.self)
            #expect(binary.data[8] == 0x80)
            #expect(trailer.contains("grpc-status:0\r\n") && trailer.contains("trailer-x-trace:abc\r\n"), "\(trailer)")

            let text = try await Self.request(
                client, "POST", "/test.Echo/Fail", contentType: "application/grpc-web-text",
                body: Array(Data(Self.frame([9])).base64EncodedString().utf8))
            #expect(text.header("content-type") == "application/grpc-web-text+proto")
            let decoded = try #require(Data(base64Encoded: Data(text.data)))
            #expect(decoded.first == 0x80)
            #expect(String(decoding: decoded, as: UTF8.self).contains("grpc-status:9\r\n"))
        }
    }

    @Test("Connect: protobuf in and out, and an error as JSON with the Connect HTTP status")
    func connect() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            let ok = try await Self.request(
                client, "POST", "/test.Echo/Unary", contentType: "application/proto", body: [4, 5, 6],
                headers: [("connect-protocol-version", "1")])
            #expect(ok.httpStatus == 200)
            #expect(ok.header("content-type") == "application/proto")
            #expect(ok.data == [4, 5, 6])
            let failed = try await Self.request(client, "POST", "/test.Echo/Fail", contentType: "application/proto")
            #expect(failed.httpStatus == 400)
            #expect(failed.header("content-type") == "application/json")
            #expect(String(decoding: failed.data, as: UTF8.self).hasPrefix(#"{"code":"failed_precondition","#))
            let json = try await Self.request(client, "POST", "/test.Echo/Unary", contentType: "application/json")
            #expect(json.httpStatus == 501, "this method has no JSON coding")
            let plain = try await Self.request(client, "POST", "/test.Echo/Unary", contentType: "text/plain")
            #expect(plain.httpStatus == 415)
            let get = try await Self.request(client, "GET", "/test.Echo/Unary?encoding=proto&message=x")
            #expect(get.httpStatus == 405, "only methods that allow GET take it")
        }
    }

    @Test("/healthz and /metrics answer GET; an unknown path is 404")
    func healthAndMetrics() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            let health = try await Self.request(client, "GET", "/healthz")
            #expect(health.httpStatus == 200 && health.data == Array("ok\n".utf8))
            let metrics = try await Self.request(client, "GET", "/metrics")
            #expect(metrics.httpStatus == 200 && metrics.data == Array("made_up_total 1\n".utf8))
            #expect(metrics.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let missing = try await Self.request(client, "GET", "/nothing-here")
            #expect(missing.httpStatus == 404)
        }
    }

    @Test("CORS as over HTTP/1.1: the same origin (:authority) or a listed one, preflights included")
    func cors() async throws {
        let web = WebConfiguration(allowedOrigins: ["https://app.example"])
        try await withServer(Self.configuration(web)) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            let preflight = [
                ("access-control-request-method", "POST"), ("access-control-request-headers", "content-type"),
            ]
            for origin in ["http://127.0.0.1:50051", "https://app.example"] {
                let allowed = try await Self.request(
                    client, "OPTIONS", "/test.Echo/Unary", headers: [("origin", origin)] + preflight)
                #expect(allowed.httpStatus == 204, "\(origin)")
                #expect(allowed.header("access-control-allow-origin") == origin)
                #expect(allowed.header("content-length") == nil)
                let call = try await Self.request(
                    client, "POST", "/test.Echo/Unary", contentType: "application/proto", body: [1],
                    headers: [("origin", origin)])
                #expect(call.httpStatus == 200 && call.header("access-control-allow-origin") == origin)
            }
            let refused = try await Self.request(
                client, "OPTIONS", "/test.Echo/Unary", headers: [("origin", "https://elsewhere.example")] + preflight)
            #expect(refused.httpStatus == 403)
            let call = try await Self.request(
                client, "POST", "/test.Echo/Unary", contentType: "application/proto", body: [1],
                headers: [("origin", "https://elsewhere.example")])
            #expect(call.httpStatus == 403)
        }
    }

    @Test("a body over the limit is 413, and the connection still carries gRPC calls beside web requests")
    func limitAndInterleaving() async throws {
        let web = WebConfiguration(maxRequestBodyBytes: 1000)
        try await withServer(Self.configuration(web)) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            let big = try await Self.request(
                client, "POST", "/test.Echo/Unary", contentType: "application/proto",
                body: [UInt8](repeating: 7, count: 5000))
            #expect(big.httpStatus == 413)
            let web = client.open(
                path: "/healthz", body: [], replace: [":method": "GET", "content-type": "<none>", "te": "<none>"])
            let grpc = client.open(path: "/test.Echo/Unary", body: Self.frame([42]))
            try await client.pump { client.replies[web]!.endStreamReceived && client.replies[grpc]!.endStreamReceived }
            #expect(client.replies[web]!.data == Array("ok\n".utf8))
            #expect(client.replies[grpc]!.grpcStatus == 0)
            #expect(client.replies[grpc]!.data == Self.frame([42]))
        }
    }
}
