import Testing

@testable import WireProtocol

/// Unary methods with a synchronous handler (`ServerMethod(unaryPath:synchronous:)`): answered
/// straight from the event loop when handlers start inline, in a task otherwise.
@Suite struct SynchronousHandlerTests {
    /// Echoes the request behind one byte: 1 when the handler ran outside any task (on the loop
    /// itself), 0 inside one.
    static let echo = ServerMethod(unaryPath: "/test.Sync/Echo", maxRequestBytes: 1 << 20) { request, _ in
        let outsideTasks = withUnsafeCurrentTask { $0 == nil }
        return [outsideTasks ? 1 : 0] + request
    }

    static let fail = ServerMethod(unaryPath: "/test.Sync/Fail") { (_, context) throws(RPCError) -> [UInt8] in
        throw RPCError(
            code: .failedPrecondition, message: "not for \(context.path)", metadata: ["reason-bin": .binary([7, 0, 7])])
    }

    func withSyncServer(
        inline: Bool = true, compression: CompressionAlgorithm = .identity,
        _ body: @Sendable (ListeningAddresses) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.startHandlersInline = inline
        configuration.responseCompression = compression
        try await withServer(configuration, methods: [Self.echo, Self.fail]) { _, addresses in
            try await body(addresses)
        }
    }

    @Test("with inline handlers a small request is answered on the loop, without a task", arguments: [true, false])
    func answersOnTheLoop(inline: Bool) async throws {
        try await withSyncServer(inline: inline) { addresses in
            let client = EndToEndTests.tcpClient(addresses)
            for i in 0..<3 {
                let response = try await client.unary(path: "/test.Sync/Echo", request: [UInt8(i), 42])
                #expect(response.message == [inline ? 1 : 0, UInt8(i), 42])
            }
            await client.close()
        }
    }

    @Test("a request over the inline limit is answered from a task, so the loop does not wait on it")
    func largeRequestLeavesTheLoop() async throws {
        try await withSyncServer { addresses in
            let client = EndToEndTests.tcpClient(addresses)
            let large = [UInt8](repeating: 9, count: ServerConnection.inlineRequestLimit + 1)
            let response = try await client.unary(path: "/test.Sync/Echo", request: large)
            #expect(response.message == [0] + large)
            let small = try await client.unary(path: "/test.Sync/Echo", request: [1])
            #expect(small.message == [1, 1])
            await client.close()
        }
    }

    @Test("a thrown RPCError arrives with its code, message and metadata, and the connection serves on")
    func errorsArriveWhole() async throws {
        try await withSyncServer { addresses in
            let client = EndToEndTests.tcpClient(addresses)
            let error = await #expect(throws: RPCError.self) {
                try await client.unary(path: "/test.Sync/Fail", request: [])
            }
            #expect(error?.code == .failedPrecondition)
            #expect(error?.message == "not for /test.Sync/Fail")
            #expect(error?.metadata.first(named: "reason-bin") == .binary([7, 0, 7]))
            let response = try await client.unary(path: "/test.Sync/Echo", request: [5])
            #expect(response.message == [1, 5])
            await client.close()
        }
    }

    @Test(
        "the server's response compression applies when the client accepts it",
        arguments: [[CompressionAlgorithm.identity, .gzip], [.identity]])
    func responseCompression(accepted: [CompressionAlgorithm]) async throws {
        try await withSyncServer(compression: .gzip) { addresses in
            let client = EndToEndTests.tcpClient(addresses, ClientConfiguration(acceptedCompression: accepted))
            let request = [UInt8](repeating: 3, count: 10_000)
            let response = try await client.unary(path: "/test.Sync/Echo", request: request)
            #expect(response.message == [1] + request)
            await client.close()
        }
    }
}
