import CNghttp2
import H2TestClient
import Testing

@testable import WireProtocol

/// The windows the server opens: a connection's to its request budget, a stream whose request
/// is one message, once it is large, to the largest message its method takes; a streaming
/// request's is left at HTTP/2's initial size (it paces the client to the handler).
@Suite struct FlowControlWindowTests {
    static let initialWindow = 65_535

    @Test("a large unary request's stream and the connection get windows for a whole message")
    func unaryStreamAndConnectionWindows() async throws {
        let methods =
            TestMethods.all(Observations()) + [
                ServerMethod(streamingPath: "/test.Stream/Drain", kind: .clientStreaming) { requests, _, _ in
                    for try await _ in requests {}
                }
            ]
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.maxBufferedRequestBytesPerConnection = 32 << 20
        try await withServer(configuration, methods: methods) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            // The first 20,000 bytes of a message of 100,000: past the 16 KiB at which a
            // one-message request's window opens; a small request never gets that far.
            let part = Array(
                try Envelope.frame([UInt8](repeating: 7, count: 100_000), compression: .identity)[..<20_000])
            let unary = raw.open(path: "/test.Echo/Unary", body: part, endStream: false)
            let big = raw.open(path: "/test.Echo/Big", body: part, endStream: false)
            let streaming = raw.open(path: "/test.Stream/Drain", body: part, endStream: false)
            try await raw.pump(seconds: 10) {
                nghttp2_session_get_remote_window_size(raw.session) > 16 << 20
                    && nghttp2_session_get_stream_remote_window_size(raw.session, unary) > Self.initialWindow
                    && nghttp2_session_get_stream_remote_window_size(raw.session, big) > 4 << 20
            }
            #expect(nghttp2_session_get_stream_remote_window_size(raw.session, unary) <= (4 << 20) + 5)
            #expect(nghttp2_session_get_stream_remote_window_size(raw.session, big) <= (16 << 20) + 5)
            // The streaming request's partial message is not the handler's yet: its window stays shut.
            #expect(nghttp2_session_get_stream_remote_window_size(raw.session, streaming) <= Int32(Self.initialWindow))
        }
    }

    @Test("a unary request larger than HTTP/2's initial window arrives whole")
    func largeUnaryRequest() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let message = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: try Envelope.frame(message, compression: .identity))
            #expect(reply.grpcStatus == 0)
            #expect(reply.data == (try Envelope.frame(message, compression: .identity)))
        }
    }

    @Test("an error quoting a large request answers with a bounded grpc-message, not a hang")
    func errorQuotingALargeRequest() async throws {
        // As Health answers an unknown service: the client's own text in the message. A
        // 70,000-byte quote used to make a trailer the client waited on until its deadline.
        let quoting = ServerMethod(path: "/test.Echo/Quote", kind: .unary) { request, _, _ in
            throw RPCError(code: .notFound, message: "unknown '\(String(decoding: request, as: UTF8.self))'")
        }
        try await withServer(methods: [quoting]) { _, addresses in
            // The client's default 30 s deadline: a hang fails at any deadline, and a tighter
            // one failed once when the test process stalled under a loaded machine.
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let message = [UInt8](repeating: UInt8(ascii: "q"), count: 70_000)
            let reply = try await raw.call(
                path: "/test.Echo/Quote", body: try Envelope.frame(message, compression: .identity))
            #expect(reply.grpcStatus == Status.Code.notFound.rawValue)
            let quoted = reply.grpcMessage ?? ""
            #expect(quoted.utf8.count <= PercentEncoding.maxEncodedBytes + 9)
            #expect(quoted.hasPrefix("unknown 'qqq"))
            #expect(quoted.hasSuffix("%E2%80%A6"))
        }
    }
}
