import CNghttp2
import Glibc
import H2TestClient
import Testing

@testable import WireProtocol

@Suite struct HostileInputTests {
    /// Checks that the server still answers a well-formed call on a fresh connection.
    static func expectStillServing(_ addresses: ListeningAddresses) async throws {
        let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
        let response = try await client.unary(path: "/test.Echo/Unary", request: [42])
        #expect(response.message == [42])
        await client.close()
    }

    static let malformedBodies: [(String, [UInt8], Status.Code)] = [
        ("truncated envelope", [0, 0, 0, 0, 5, 1, 2], .internalError),
        ("truncated prefix", [0, 0, 0], .internalError),
        ("bad flag byte", [2, 0, 0, 0, 1, 0], .internalError),
        ("compressed flag without grpc-encoding", [1, 0, 0, 0, 1, 0], .internalError),
        ("two messages on a unary call", [0, 0, 0, 0, 1, 7, 0, 0, 0, 0, 1, 8], .unimplemented),
        ("no message on a unary call", [], .unimplemented),
    ]

    @Test(arguments: malformedBodies)
    func aMalformedRequestBodyGetsItsStatus(name: String, body: [UInt8], code: Status.Code) async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(path: "/test.Echo/Unary", body: body)
            #expect(reply.httpStatus == 200, "\(name)")
            #expect(reply.grpcStatus == code.rawValue, "\(name): \(reply.grpcMessage ?? "")")
            try await Self.expectStillServing(addresses)
        }
    }

    @Test func aCompressedMessageWithIdentityEncodingIsInternal() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [1, 0, 0, 0, 1, 0], extraHeaders: [("grpc-encoding", "identity")])
            #expect(reply.grpcStatus == Status.Code.internalError.rawValue)
        }
    }

    @Test func corruptGzipIsInternal() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [1, 0, 0, 0, 4, 1, 2, 3, 4], extraHeaders: [("grpc-encoding", "gzip")])
            #expect(reply.grpcStatus == Status.Code.internalError.rawValue)
        }
    }

    @Test func anOversizedMessageIsRejectedBeforeItsBodyIsSent() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            // Announce 5 MiB (over the 4 MiB default) but send only 10 KB and keep the stream open.
            let body: [UInt8] = [0, 0, 0x50, 0, 0] + [UInt8](repeating: 1, count: 10_000)
            let reply = try await raw.call(path: "/test.Echo/Unary", body: body, endStream: false)
            #expect(reply.grpcStatus == Status.Code.resourceExhausted.rawValue)
            try await Self.expectStillServing(addresses)
        }
    }

    @Test func manyHalfSentRequestsCannotMakeTheServerBufferWithoutBound() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.maxBufferedRequestBytesPerConnection = 100_000
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            // Each announces 4 MiB - 1 and sends 40 KB: together they pass the budget, and the
            // stream whose bytes cross it (nghttp2 interleaves them) is refused.
            let body: [UInt8] = [0, 0, 0x3F, 0xFF, 0xFF] + [UInt8](repeating: 1, count: 40_000)
            let ids = (0..<3).map { _ in raw.open(path: "/test.Echo/Unary", body: body, endStream: false) }
            try await raw.pump { ids.contains { raw.replies[$0]!.grpcStatus != nil } }
            let statuses = ids.compactMap { raw.replies[$0]!.grpcStatus }
            #expect(statuses == [Status.Code.resourceExhausted.rawValue])
            try await Self.expectStillServing(addresses)
        }
    }

    @Test func aGzipBombIsResourceExhausted() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let bomb = try Envelope.frame([UInt8](repeating: 0, count: 8 << 20), compression: .gzip)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: bomb, extraHeaders: [("grpc-encoding", "gzip")])
            #expect(reply.grpcStatus == Status.Code.resourceExhausted.rawValue)
        }
    }

    @Test(arguments: ["abc", "1", "123456789S", "10x", "-5S"])
    func aMalformedGrpcTimeoutIsInternal(value: String) async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [0, 0, 0, 0, 1, 7], extraHeaders: [("grpc-timeout", value)])
            #expect(reply.grpcStatus == Status.Code.internalError.rawValue)
        }
    }

    @Test func anUnknownEncodingIsUnimplementedAndListsWhatIsSupported() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [1, 0, 0, 0, 1, 7], extraHeaders: [("grpc-encoding", "br")])
            #expect(reply.grpcStatus == Status.Code.unimplemented.rawValue)
            #expect(reply.header("grpc-accept-encoding") == "identity,gzip,deflate")
        }
    }

    /// The port's web protocols switched off: HTTP/2 is then for gRPC alone.
    static var gRPCOnly: ServerConfiguration {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 2)
        configuration.web.isEnabled = false
        return configuration
    }

    @Test func aNonGRPCContentTypeIs415() async throws {
        try await withServer(Self.gRPCOnly) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [0, 0, 0, 0, 0], replace: ["content-type": "application/json"])
            #expect(reply.httpStatus == 415)
            let missing = try await raw.call(
                path: "/test.Echo/Unary", body: [0, 0, 0, 0, 0], replace: ["content-type": ""])
            #expect(missing.httpStatus == 415)
        }
    }

    @Test func aMethodOtherThanPOSTIs405() async throws {
        try await withServer(Self.gRPCOnly) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(path: "/test.Echo/Unary", body: [], replace: [":method": "PUT"])
            #expect(reply.httpStatus == 405)
        }
    }

    @Test func missingTETrailersIsTolerated() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Unary", body: [0, 0, 0, 0, 1, 7], replace: ["te": "<none>"])
            #expect(reply.grpcStatus == 0)
            #expect(reply.data == [0, 0, 0, 0, 1, 7])
        }
    }

    @Test func unknownMethodIsTrailersOnly() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(path: "/x.Y/Z", body: [0, 0, 0, 0, 0])
            #expect(reply.trailers.isEmpty)
            #expect(reply.httpStatus == 200)
            #expect(reply.header("content-type") == "application/grpc")
            #expect(reply.grpcStatus == Status.Code.unimplemented.rawValue)
            #expect(reply.data.isEmpty)
        }
    }

    @Test func aClientThatVanishesMidStreamDoesNotHurtTheServer() async throws {
        try await withServer { _, addresses in
            do {
                let raw = try RawH2Client(port: addresses.tcpPort!)
                let id = raw.open(path: "/test.Echo/Stream", body: [0, 0, 0, 0, 3, 0x0F, 0xFF, 0xFF])
                try await raw.pump { raw.replies[id]!.data.count > 10_000 }
                // raw is dropped here: its socket closes with the stream half done.
            }
            try await Self.expectStillServing(addresses)
        }
    }

    @Test func aSlowReaderDoesNotStallOtherConnections() async throws {
        try await withServer { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let id = raw.open(path: "/test.Echo/Stream", body: [0, 0, 0, 0, 3, 0x0F, 0xFF, 0xFF])
            try await raw.pump { !raw.replies[id]!.data.isEmpty }
            // The raw client now stops reading; the server must keep serving others.
            for _ in 0..<20 { try await Self.expectStillServing(addresses) }
            raw.reset(id)
            try await raw.pump { raw.replies[id]!.closed }
        }
    }

    @Test func rapidResetEndsTheConnectionWithEnhanceYourCalm() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.resetStreamBurst = 20
        configuration.resetStreamsPerSecond = 1
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            try await raw.pump { true }
            for _ in 0..<200 {
                let id = raw.open(path: "/test.Echo/Sleep", body: [0, 0, 0, 0, 1, 1])
                try await raw.pump { true }
                raw.reset(id)
            }
            try await raw.pump { raw.goawayCode != nil || raw.connectionClosed }
            #expect(raw.goawayCode == NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            try await Self.expectStillServing(addresses)
        }
    }

    @Test func aPingFloodEndsTheConnectionWithEnhanceYourCalm() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.maxPingsPerSecond = 10
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            for _ in 0..<500 { raw.ping() }
            try await raw.pump { raw.goawayCode != nil || raw.connectionClosed }
            #expect(raw.goawayCode == NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            try await Self.expectStillServing(addresses)
        }
    }
}
