import ContinueService
import SearchAPI
import Testing
import WireProtocol

/// Our Swift client against a stock grpcio server of the interop service: the other direction.
@Suite(.serialized) struct SwiftClientInteropTests {
    static let path = "/vicontinue.testing.v1.InteropTest/"
    static let largeRequest = 271_828
    static let largeResponse = 314_159

    /// Runs `body` with a client connected to a fresh grpcio interop server.
    func withPeer(
        compression: CompressionAlgorithm = .identity, _ body: (GRPCClient) async throws -> Void
    ) async throws {
        let server = try PythonPeer.Server("interop_server.py")
        defer { server.stop() }
        let client = GRPCClient(
            target: .tcp(host: "127.0.0.1", port: server.port),
            configuration: ClientConfiguration(requestCompression: compression, maxReceiveMessageBytes: 8 << 20))
        try await body(client)
        await client.close()
    }

    func unary(
        _ client: GRPCClient, _ request: Interop.SimpleRequest, metadata: Metadata = [:], options: CallOptions = .init()
    ) async throws -> (Interop.SimpleResponse, UnaryResponse) {
        let response = try await client.unary(
            path: Self.path + "UnaryCall", request: request.serializedBytes(), metadata: metadata, options: options)
        return (try Interop.SimpleResponse(serializedBytes: response.message), response)
    }

    var largeRequest: Interop.SimpleRequest {
        Interop.SimpleRequest(
            responseSize: Int32(Self.largeResponse),
            payload: Interop.Payload(body: [UInt8](repeating: 0, count: Self.largeRequest)))
    }

    @Test("empty_unary, large_unary and concurrent_large_unary against grpcio")
    func unaryCases() async throws {
        try await withPeer { client in
            let empty = try await client.unary(path: Self.path + "EmptyCall", request: [])
            #expect(empty.message.isEmpty)
            let (response, _) = try await unary(client, largeRequest)
            #expect(response.payload?.body.count == Self.largeResponse)
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<1000 {
                    group.addTask { try await unary(client, largeRequest).0.payload?.body.count ?? 0 }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes.count == 1000)
            #expect(sizes.allSatisfy { $0 == Self.largeResponse })
        }
    }

    @Test(
        "client_compressed_unary and server_compressed_unary against grpcio",
        arguments: [CompressionAlgorithm.gzip, .deflate, .identity])
    func compressedUnary(compression: CompressionAlgorithm) async throws {
        try await withPeer(compression: compression) { client in
            var request = largeRequest
            request.responseCompressed = Interop.BoolValue(value: true)
            let (response, _) = try await unary(client, request)
            #expect(response.payload?.body == [UInt8](repeating: 0, count: Self.largeResponse))
        }
    }

    @Test("server_streaming and server_compressed_streaming against grpcio")
    func serverStreaming() async throws {
        try await withPeer { client in
            let sizes: [Int32] = [31415, 9, 2653, 58979]
            let request = Interop.StreamingOutputCallRequest(
                responseParameters: sizes.enumerated().map { index, size in
                    Interop.ResponseParameters(size: size, compressed: Interop.BoolValue(value: index % 2 == 0))
                })
            let stream = try await client.serverStreaming(
                path: Self.path + "StreamingOutputCall", request: request.serializedBytes())
            var received: [Int32] = []
            for try await bytes in stream {
                let response = try Interop.StreamingOutputCallResponse(serializedBytes: bytes)
                received.append(Int32(response.payload?.body.count ?? -1))
            }
            #expect(received == sizes)
        }
    }

    @Test("custom_metadata is echoed by grpcio in initial and trailing metadata")
    func customMetadata() async throws {
        try await withPeer { client in
            let metadata: Metadata = [
                "x-grpc-test-echo-initial": "test_initial_metadata_value",
                "x-grpc-test-echo-trailing-bin": .binary([0xab, 0xab, 0xab]),
            ]
            let (_, response) = try await unary(client, largeRequest, metadata: metadata)
            #expect(response.initialMetadata.first(named: "x-grpc-test-echo-initial") == "test_initial_metadata_value")
            #expect(
                response.trailingMetadata.first(named: "x-grpc-test-echo-trailing-bin") == .binary([0xab, 0xab, 0xab]))
        }
    }

    @Test(
        "status_code_and_message and special_status_message come back exactly",
        arguments: ["test status message", "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n"])
    func statusAndMessage(message: String) async throws {
        try await withPeer { client in
            let request = Interop.SimpleRequest(responseStatus: Interop.EchoStatus(code: 2, message: message))
            let error = await #expect(throws: RPCError.self) { try await unary(client, request) }
            #expect(error?.code == .unknown)
            #expect(error?.message == message)
        }
    }

    @Test("unimplemented_method and unimplemented_service are UNIMPLEMENTED from grpcio")
    func unimplemented() async throws {
        try await withPeer { client in
            for path in [Self.path + "UnimplementedCall", "/vicontinue.testing.v1.UnimplementedService/Call"] {
                let error = await #expect(throws: RPCError.self) { try await client.unary(path: path, request: []) }
                #expect(error?.code == .unimplemented)
            }
        }
    }

    @Test("timeout_on_sleeping_server ends in DEADLINE_EXCEEDED")
    func timeoutOnSleepingServer() async throws {
        try await withPeer { client in
            let request = Interop.SimpleRequest(responseSize: 1, sleepMs: 1000)
            let error = await #expect(throws: RPCError.self) {
                try await unary(client, request, options: CallOptions(timeout: .milliseconds(50)))
            }
            #expect(error?.code == .deadlineExceeded)
        }
    }

    @Test("a cancelled reader stops at once even with the rest of the stream already received")
    func aCancelledReaderStopsBeforeBufferedMessages() async throws {
        try await withPeer { client in
            let request = Interop.StreamingOutputCallRequest(
                responseParameters: Array(repeating: Interop.ResponseParameters(size: 100, intervalUs: 0), count: 50))
            let stream = try await client.serverStreaming(
                path: Self.path + "StreamingOutputCall", request: request.serializedBytes())
            // A consumer that falls behind (as on a busy machine): every message has arrived
            // before it reads the first.
            _ = try await stream.initialMetadata
            try await Task.sleep(for: .milliseconds(300))
            let reader = Task {
                var count = 0
                for try await _ in stream {
                    count += 1
                    withUnsafeCurrentTask { $0?.cancel() }
                }
                return count
            }
            switch await reader.result {
            case .success(let count): Issue.record("read \(count) messages, cancelled after the first")
            case .failure(let error): #expect((error as? RPCError)?.code == .cancelled)
            }
        }
    }

    @Test("cancel_after_first_response: cancelling the reading task cancels the call")
    func cancelAfterFirstResponse() async throws {
        try await withPeer { client in
            let request = Interop.StreamingOutputCallRequest(
                responseParameters: Array(
                    repeating: Interop.ResponseParameters(size: 31415, intervalUs: 20_000), count: 50))
            let stream = try await client.serverStreaming(
                path: Self.path + "StreamingOutputCall", request: request.serializedBytes())
            let reader = Task {
                var count = 0
                for try await _ in stream {
                    count += 1
                    if count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return count
            }
            let result = await reader.result
            switch result {
            case .success(let count): #expect(count < 50, "the stream went on after cancellation")
            case .failure(let error): #expect((error as? RPCError)?.code == .cancelled)
            }
            // The connection still serves after the cancelled stream.
            let empty = try await client.unary(path: Self.path + "EmptyCall", request: [])
            #expect(empty.message.isEmpty)
        }
    }
}
