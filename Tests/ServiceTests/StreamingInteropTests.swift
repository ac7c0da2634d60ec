import ContinueService
import SearchAPI
import Testing
import WireProtocol

/// Our Swift client's client-streaming and full-duplex calls, against a stock grpcio server of
/// the interop service and against our own server: the interop cases client_streaming,
/// ping_pong, empty_stream, cancel_after_begin, cancel_after_first_response (full duplex) and a
/// full-duplex deadline.
@Suite(.serialized) struct StreamingInteropTests {
    static let path = "/vicontinue.testing.v1.InteropTest/"

    enum Peer: String, CaseIterable {
        case grpcio
        case ours
    }

    /// Runs `body` with a client connected to a fresh interop server of `peer`.
    func withServer(_ peer: Peer, _ body: @Sendable (GRPCClient) async throws -> Void) async throws {
        let configuration = ClientConfiguration(maxReceiveMessageBytes: 8 << 20)
        switch peer {
        case .grpcio:
            let server = try PythonPeer.Server("interop_server.py")
            defer { server.stop() }
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port), configuration: configuration)
            try await body(client)
            await client.close()
        case .ours:
            try await withTestServer(methods: InteropTestService().methods) { addresses in
                let client = GRPCClient(
                    target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!), configuration: configuration)
                try await body(client)
                await client.close()
            }
        }
    }

    static func request(responseSizes: [Int32], payload: Int = 0, intervalUs: Int32 = 0)
        -> Interop.StreamingOutputCallRequest
    {
        Interop.StreamingOutputCallRequest(
            responseParameters: responseSizes.map { Interop.ResponseParameters(size: $0, intervalUs: intervalUs) },
            payload: Interop.Payload(body: [UInt8](repeating: 0, count: payload)))
    }

    static func payloadSize(_ bytes: [UInt8]) throws -> Int {
        try Interop.StreamingOutputCallResponse(serializedBytes: bytes).payload?.body.count ?? 0
    }

    @Test("client_streaming: the server answers with the total payload size", arguments: Peer.allCases)
    func clientStreaming(peer: Peer) async throws {
        try await withServer(peer) { client in
            let response = try await client.clientStreaming(path: Self.path + "StreamingInputCall") { requests in
                for size in [27182, 8, 1828, 45904] {
                    let request = Interop.StreamingInputCallRequest(
                        payload: Interop.Payload(body: [UInt8](repeating: 0, count: size)))
                    try await requests.send(request.serializedBytes())
                }
            }
            let answer = try Interop.StreamingInputCallResponse(serializedBytes: response.message)
            #expect(answer.aggregatedPayloadSize == 74922)
        }
    }

    @Test("ping_pong: each request is answered before the next is sent", arguments: Peer.allCases)
    func pingPong(peer: Peer) async throws {
        try await withServer(peer) { client in
            let call = client.bidirectionalStreaming(path: Self.path + "FullDuplexCall")
            var responses = call.responses.makeAsyncIterator()
            let requestSizes = [27182, 8, 1828, 45904]
            let responseSizes: [Int32] = [31415, 9, 2653, 58979]
            for (requestSize, responseSize) in zip(requestSizes, responseSizes) {
                let request = Self.request(responseSizes: [responseSize], payload: requestSize)
                try await call.requests.send(request.serializedBytes())
                let response = try #require(try await responses.next())
                #expect(try Self.payloadSize(response) == Int(responseSize))
            }
            call.requests.finish()
            #expect(try await responses.next() == nil)
            #expect(call.responses.status?.code == .ok)
        }
    }

    @Test("empty_stream: no request, no response, OK", arguments: Peer.allCases)
    func emptyStream(peer: Peer) async throws {
        try await withServer(peer) { client in
            let call = client.bidirectionalStreaming(path: Self.path + "FullDuplexCall")
            call.requests.finish()
            var count = 0
            for try await _ in call.responses { count += 1 }
            #expect(count == 0)
            #expect(call.responses.status?.code == .ok)
        }
    }

    @Test("cancel_after_begin: a client stream cancelled before any request ends CANCELLED", arguments: Peer.allCases)
    func cancelAfterBegin(peer: Peer) async throws {
        try await withServer(peer) { client in
            let call = client.bidirectionalStreaming(path: Self.path + "StreamingInputCall")
            let reader = Task { for try await _ in call.responses {} }
            reader.cancel()
            let error = await #expect(throws: RPCError.self) { try await reader.value }
            #expect(error?.code == .cancelled)
            // A send after the cancellation fails, and the connection still serves.
            await #expect(throws: RPCError.self) { try await call.requests.send([]) }
            let empty = try await client.unary(path: Self.path + "EmptyCall", request: [])
            #expect(empty.message.isEmpty)
        }
    }

    @Test("cancel_after_first_response on a full-duplex call ends CANCELLED", arguments: Peer.allCases)
    func cancelAfterFirstResponse(peer: Peer) async throws {
        try await withServer(peer) { client in
            let call = client.bidirectionalStreaming(path: Self.path + "FullDuplexCall")
            try await call.requests.send(Self.request(responseSizes: [31415], payload: 27182).serializedBytes())
            let reader = Task {
                var count = 0
                for try await response in call.responses {
                    count += 1
                    #expect(try Self.payloadSize(response) == 31415)
                    withUnsafeCurrentTask { $0?.cancel() }
                }
                return count
            }
            let error = await #expect(throws: RPCError.self) { try await reader.value }
            #expect(error?.code == .cancelled)
        }
    }

    @Test("a full-duplex call past its deadline ends DEADLINE_EXCEEDED", arguments: Peer.allCases)
    func timeoutOnSleepingServer(peer: Peer) async throws {
        try await withServer(peer) { client in
            let call = client.bidirectionalStreaming(
                path: Self.path + "FullDuplexCall", options: CallOptions(timeout: .milliseconds(50)))
            try await call.requests.send(Self.request(responseSizes: [1], intervalUs: 2_000_000).serializedBytes())
            let error = await #expect(throws: RPCError.self) {
                for try await _ in call.responses {}
            }
            #expect(error?.code == .deadlineExceeded)
        }
    }
}
