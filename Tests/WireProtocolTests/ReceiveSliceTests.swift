import Testing

@testable import WireProtocol

/// The server hands received bytes to nghttp2 in slices of `H2Connection.receiveSlice` and
/// sends the answers finished so far between slices; frames cut at any point must still work.
@Suite struct ReceiveSliceTests {
    @Test func aBurstOfCallsWithFramesLongerThanASliceIsAnsweredInFull() async throws {
        try await withServer { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<64 {
                    group.addTask {
                        // Headers and message each longer than a slice, and different per call,
                        // so HPACK cannot shrink them and frames straddle slice boundaries.
                        let tag = String(repeating: String(i % 10), count: H2Connection.receiveSlice + i)
                        let request = [UInt8](repeating: UInt8(i), count: H2Connection.receiveSlice * 3 + i)
                        let response = try await client.unary(
                            path: "/test.Echo/Unary", request: request, metadata: ["x-tag": .string(tag)])
                        #expect(response.message == request)
                        #expect(response.initialMetadata.first(named: "echo-x-tag") == .string(tag))
                        #expect(response.trailingMetadata.first(named: "trailer-x-tag") == .string(tag))
                    }
                }
                try await group.waitForAll()
            }
            await client.close()
        }
    }
}
