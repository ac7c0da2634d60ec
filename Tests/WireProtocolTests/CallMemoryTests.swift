import Synchronization
import Testing

@testable import WireProtocol

/// Holds weak references to the response writers handlers were given.
final class WriterTracker: Sendable {
    private struct Entry: @unchecked Sendable { weak var writer: AnyObject? }
    private let entries = Mutex<[Entry]>([])

    func track(_ writer: any ResponseWriter) {
        entries.withLock { $0.append(Entry(writer: writer as AnyObject)) }
    }

    var tracked: Int { entries.withLock { $0.count } }
    var alive: Int { entries.withLock { $0.count { $0.writer != nil } } }

    /// Polls briefly until every tracked writer is gone; the loop frees them after the stream closes.
    func waitUntilAllReleased() async -> Bool {
        for _ in 0..<300 {
            if alive == 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return alive == 0
    }
}

@Suite struct CallMemoryTests {
    /// A finished call must not keep its stream and writer (and through them the connection)
    /// alive: they referenced each other, and every call left a few kilobytes behind.
    @Test(arguments: [ServerMethod.Kind.unary, .serverStreaming])
    func finishedCallsReleaseTheirWriter(kind: ServerMethod.Kind) async throws {
        let tracker = WriterTracker()
        let method = ServerMethod(path: "/test.Memory/Call", kind: kind) { request, _, writer in
            tracker.track(writer)
            try await writer.write(request)
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: try #require(addresses.tcpPort)))
            for i in 0..<20 {
                if kind == .unary {
                    let response = try await client.unary(path: "/test.Memory/Call", request: [UInt8(i)])
                    #expect(response.message == [UInt8(i)])
                } else {
                    var received: [[UInt8]] = []
                    for try await message in try await client.serverStreaming(
                        path: "/test.Memory/Call", request: [UInt8(i)])
                    {
                        received.append(message)
                    }
                    #expect(received == [[UInt8(i)]])
                }
            }
            #expect(tracker.tracked == 20)
            #expect(await tracker.waitUntilAllReleased(), "\(tracker.alive) writers still alive")
            await client.close()
        }
    }

    /// The same for streaming-request calls, which also hold a request stream whose consumption
    /// notice reaches back to the connection; some end before the client half-closes.
    @Test(arguments: [ServerMethod.Kind.clientStreaming, .bidirectionalStreaming])
    func finishedStreamingRequestCallsReleaseTheirWriter(kind: ServerMethod.Kind) async throws {
        let tracker = WriterTracker()
        let method = ServerMethod(streamingPath: "/test.Memory/Stream", kind: kind) { requests, _, writer in
            tracker.track(writer)
            for try await request in requests {
                try await writer.write(request)
                // A bidirectional handler answers the first request and ends the call early.
                if kind == .bidirectionalStreaming { return }
            }
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: try #require(addresses.tcpPort)))
            for i in 0..<20 {
                let call = client.bidirectionalStreaming(path: "/test.Memory/Stream")
                try await call.requests.send([UInt8(i)])
                if kind == .clientStreaming { call.requests.finish() }
                var received: [[UInt8]] = []
                for try await message in call.responses { received.append(message) }
                #expect(received == [[UInt8(i)]])
            }
            #expect(tracker.tracked == 20)
            #expect(await tracker.waitUntilAllReleased(), "\(tracker.alive) writers still alive")
            await client.close()
        }
    }
}
