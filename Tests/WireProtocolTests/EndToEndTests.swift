import Glibc
import H2TestClient
import Testing

@testable import WireProtocol

@Suite struct EndToEndTests {
    static func tcpClient(_ addresses: ListeningAddresses, _ configuration: ClientConfiguration = .init()) -> GRPCClient
    {
        GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!), configuration: configuration)
    }

    @Test func unaryEchoOverTCP() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            let response = try await client.unary(path: "/test.Echo/Unary", request: [1, 2, 3])
            #expect(response.message == [1, 2, 3])
            let empty = try await client.unary(path: "/test.Echo/Unary", request: [])
            #expect(empty.message == [])
            await client.close()
        }
    }

    @Test func unaryEchoOverAUnixSocket() async throws {
        let path = "/tmp/wire-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        try await withServer(ServerConfiguration(unixSocketPath: path, eventLoopCount: 1)) { _, addresses in
            #expect(addresses.unixSocketPath == path)
            let client = GRPCClient(target: .unix(path: path))
            let response = try await client.unary(path: "/test.Echo/Unary", request: Array("over unix".utf8))
            #expect(response.message == Array("over unix".utf8))
            await client.close()
        }
        #expect(access(path, F_OK) != 0, "the socket file is removed on shutdown")
    }

    @Test func serverStreamingDeliversManyMessagesInOrder() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            let stream = try await client.serverStreaming(path: "/test.Echo/Stream", request: [0x13, 0x88])  // 5000
            var count = 0
            for try await message in stream {
                #expect(message == [UInt8](repeating: UInt8(truncatingIfNeeded: count), count: 100))
                count += 1
            }
            #expect(count == 5000)
            #expect(stream.status == .ok)
            await client.close()
        }
    }

    @Test(arguments: [0, 1, 3, 100], [true, false])
    func shortStreamsArriveWholeWhetherHandlersStartInlineOrNot(count: Int, inline: Bool) async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.startHandlersInline = inline
        try await withServer(configuration) { _, addresses in
            let client = Self.tcpClient(addresses)
            let stream = try await client.serverStreaming(
                path: "/test.Echo/Stream", request: [UInt8(count >> 8), UInt8(count & 0xFF)])
            var received = 0
            for try await message in stream {
                #expect(message.count == 100)
                received += 1
            }
            #expect(received == count)
            let response = try await client.unary(path: "/test.Echo/Unary", request: [UInt8(count)])
            #expect(response.message == [UInt8(count)])
            await client.close()
        }
    }

    @Test(arguments: [CompressionAlgorithm.gzip, .deflate])
    func compressionWorksInBothDirections(algorithm: CompressionAlgorithm) async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.responseCompression = algorithm
        try await withServer(configuration) { _, addresses in
            let client = Self.tcpClient(addresses)
            let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
            let response = try await client.unary(
                path: "/test.Echo/Unary", request: big, options: CallOptions(compression: algorithm))
            #expect(response.message == big)
            let viaBig = try await client.unary(path: "/test.Echo/Big", request: big)
            #expect(viaBig.message == big)
            await client.close()
        }
    }

    @Test func theServerCompressesOnlyWhatTheClientAccepts() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.responseCompression = .gzip
        try await withServer(configuration) { _, addresses in
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let message = [UInt8](repeating: 3, count: 1000)
            let body = try Envelope.frame(message, compression: .identity)
            let plain = try await raw.call(
                path: "/test.Echo/Unary", body: body, extraHeaders: [("grpc-accept-encoding", "identity")])
            #expect(plain.header("grpc-encoding") == nil)
            #expect(plain.data == body)
            let gzipped = try await raw.call(
                path: "/test.Echo/Unary", body: body, extraHeaders: [("grpc-accept-encoding", "deflate, gzip")])
            #expect(gzipped.header("grpc-encoding") == "gzip")
            #expect(gzipped.data.first == 1)
            let decoded = try MessageDecoder.decode(
                compressed: true, bytes: Array(gzipped.data.dropFirst(5)), encoding: .gzip, limit: 10_000)
            #expect(decoded == message)
        }
    }

    @Test func anEncodingTheServerDisabledIsUnimplemented() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.enabledCompression = [.identity, .gzip]
        try await withServer(configuration) { _, addresses in
            let client = Self.tcpClient(addresses)
            await expectRPCError(.unimplemented) {
                _ = try await client.unary(
                    path: "/test.Echo/Unary", request: [1], options: .init(compression: .deflate))
            }
            let response = try await client.unary(
                path: "/test.Echo/Unary", request: [1], options: .init(compression: .gzip))
            #expect(response.message == [1])
            await client.close()
        }
    }

    @Test func metadataIsEchoedAsInitialAndTrailingMetadata() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            var metadata: Metadata = ["x-name": "value", "X-Upper": "Case"]
            metadata.add("x-blob-bin", [0, 0xFF, 0x10, 0x80])
            let response = try await client.unary(path: "/test.Echo/Unary", request: [9], metadata: metadata)
            #expect(response.initialMetadata.first(named: "echo-x-name") == .string("value"))
            #expect(response.initialMetadata.first(named: "echo-x-upper") == .string("Case"))
            #expect(response.initialMetadata.first(named: "echo-x-blob-bin") == .binary([0, 0xFF, 0x10, 0x80]))
            #expect(response.trailingMetadata.first(named: "trailer-x-blob-bin") == .binary([0, 0xFF, 0x10, 0x80]))
            #expect(response.initialMetadata.first(named: "content-type") == nil)
            #expect(response.trailingMetadata.first(named: "grpc-status") == nil)
            await client.close()
        }
    }

    @Test func aThrownRPCErrorReachesTheClientWithMessageAndMetadata() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            let error = await expectRPCError(.failedPrecondition) {
                _ = try await client.unary(path: "/test.Echo/Fail", request: [])
            }
            #expect(error?.message == "no\tway ☃ 100%\r\n")
            #expect(error?.metadata.first(named: "detail-bin") == .binary([0, 1, 2]))
            await expectRPCError(.unknown) { _ = try await client.unary(path: "/test.Echo/Throw", request: []) }
            await expectRPCError(.internalError) { _ = try await client.unary(path: "/test.Echo/Silent", request: []) }
            await client.close()
        }
    }

    @Test func unknownMethodsAndServicesAreUnimplemented() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            await expectRPCError(.unimplemented) { _ = try await client.unary(path: "/test.Echo/Nope", request: []) }
            await expectRPCError(.unimplemented) { _ = try await client.unary(path: "/no.Such/Service", request: []) }
            let stream = try await client.serverStreaming(path: "/no.Such/Stream", request: [])
            await expectRPCError(.unimplemented) { for try await _ in stream {} }
            // The connection still serves.
            let again = try await client.unary(path: "/test.Echo/Unary", request: [1])
            #expect(again.message == [1])
            await client.close()
        }
    }

    @Test func anExpiredDeadlineCancelsTheHandler() async throws {
        let observations = Observations()
        try await withServer(observations: observations) { _, addresses in
            let client = Self.tcpClient(addresses)
            await expectRPCError(.deadlineExceeded) {
                _ = try await client.unary(
                    path: "/test.Echo/Sleep", request: [1], options: CallOptions(timeout: .milliseconds(200)))
            }
            #expect(await observations.waitFor("sleep-cancelled"))
            await client.close()
        }
    }

    @Test func theServerEnforcesTheDeadlineItReceives() async throws {
        let observations = Observations()
        try await withServer(observations: observations) { _, addresses in
            // The raw client sends grpc-timeout without enforcing it, so the status seen here
            // can only come from the server's own timer.
            let raw = try RawH2Client(port: addresses.tcpPort!)
            let reply = try await raw.call(
                path: "/test.Echo/Sleep", body: [0, 0, 0, 0, 1, 7], extraHeaders: [("grpc-timeout", "100m")])
            #expect(reply.grpcStatus == Status.Code.deadlineExceeded.rawValue)
            #expect(await observations.waitFor("sleep-cancelled"))
        }
    }

    @Test func cancellingTheClientTaskCancelsTheServerHandler() async throws {
        let observations = Observations()
        try await withServer(observations: observations) { _, addresses in
            let client = Self.tcpClient(addresses)
            let call = Task { try await client.unary(path: "/test.Echo/Sleep", request: [1]) }
            #expect(await observations.waitFor("sleep-started"))
            call.cancel()
            let result = await call.result
            #expect(throws: RPCError.self) { try result.get() }
            #expect(await observations.waitFor("sleep-cancelled"))
            let again = try await client.unary(path: "/test.Echo/Unary", request: [2])
            #expect(again.message == [2])
            await client.close()
        }
    }

    @Test func droppingAStreamMidwayCancelsIt() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            do {
                let stream = try await client.serverStreaming(path: "/test.Echo/Stream", request: [0x0F, 0xFF, 0xFF])
                var iterator = stream.makeAsyncIterator()
                _ = try await iterator.next()
                _ = try await iterator.next()
            }
            let again = try await client.unary(path: "/test.Echo/Unary", request: [3])
            #expect(again.message == [3])
            await client.close()
        }
    }

    @Test func aThousandConcurrentUnaryCallsSucceed() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<1000 {
                    group.addTask {
                        let request = [UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8)]
                        let response = try await client.unary(path: "/test.Echo/Unary", request: request)
                        #expect(response.message == request)
                    }
                }
                try await group.waitForAll()
            }
            await client.close()
        }
    }

    @Test func aStreamCanFailAfterSomeMessages() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            let stream = try await client.serverStreaming(path: "/test.Echo/StreamThenFail", request: [])
            #expect(try await stream.initialMetadata.first(named: "stage") == .string("started"))
            var received: [[UInt8]] = []
            let error = await expectRPCError(.aborted) {
                for try await message in stream { received.append(message) }
            }
            #expect(received == [[0], [1], [2]])
            #expect(error?.message == "stopped after 3")
            #expect(error?.metadata.first(named: "partial") == .string("3"))
            #expect(stream.trailingMetadata?.first(named: "partial") == .string("3"))
            await client.close()
        }
    }

    @Test func messagesLargerThanTheFlowControlWindowsPassBothWays() async throws {
        try await withServer { _, addresses in
            let client = Self.tcpClient(addresses)
            var big = [UInt8](repeating: 0xA5, count: 6 << 20)
            for i in stride(from: 0, to: big.count, by: 4099) { big[i] = UInt8(truncatingIfNeeded: i) }
            let response = try await client.unary(
                path: "/test.Echo/Big", request: big, options: CallOptions(maxReceiveMessageBytes: 8 << 20))
            #expect(response.message == big)
            // The same response is over the client's default 4 MiB receive limit.
            await expectRPCError(.resourceExhausted) {
                _ = try await client.unary(path: "/test.Echo/Big", request: big)
            }
            // And the request is over the server's default limit for other methods.
            await expectRPCError(.resourceExhausted) {
                _ = try await client.unary(path: "/test.Echo/Unary", request: big)
            }
            let small = try await client.unary(path: "/test.Echo/Unary", request: [1])
            #expect(small.message == [1])
            await client.close()
        }
    }

    @Test func theClientReconnectsAfterTheServerRestarts() async throws {
        let path = "/tmp/wire-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let client = GRPCClient(target: .unix(path: path))
        for round in 0..<2 {
            try await withServer(ServerConfiguration(unixSocketPath: path, eventLoopCount: 1)) { _, _ in
                let response = try await client.unary(path: "/test.Echo/Unary", request: [UInt8(round)])
                #expect(response.message == [UInt8(round)])
            }
        }
        await expectRPCError(.unavailable) { _ = try await client.unary(path: "/test.Echo/Unary", request: []) }
        await client.close()
    }

    @Test func callsBeyondMaxConcurrentStreamsWaitTheirTurn() async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.maxConcurrentStreams = 2
        try await withServer(configuration) { _, addresses in
            let client = Self.tcpClient(addresses)
            _ = try await client.unary(path: "/test.Echo/Unary", request: [0])  // receive SETTINGS first
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let response = try await client.unary(path: "/test.Echo/Unary", request: [UInt8(i)])
                        #expect(response.message == [UInt8(i)])
                    }
                }
                try await group.waitForAll()
            }
            await client.close()
        }
    }

    @Test func aCallToAServerThatIsNotThereIsUnavailable() async throws {
        let port = try await withServer { _, addresses in addresses.tcpPort! }
        let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: port))
        await expectRPCError(.unavailable) { _ = try await client.unary(path: "/test.Echo/Unary", request: []) }
        await client.close()
    }
}
