import Synchronization
import Testing

@testable import WireProtocol

/// Client- and bidirectional-streaming calls end to end, our client against our server over a
/// real socket: flow control toward a slow handler, a handler that ends early, cancellation.
@Suite struct StreamingCallTests {
    /// A gate a handler waits at until the test opens it.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    static let messageBytes = 64 << 10
    static let messageCount = 100

    @Test func aHandlerThatDoesNotReadStopsTheSenderAndEveryMessageArrivesOnceItReads() async throws {
        let gate = Gate()
        let method = ServerMethod(streamingPath: "/test.Stream/Sum", kind: .clientStreaming) { requests, _, writer in
            await gate.wait()
            var total = 0
            for try await request in requests { total += request.count }
            try await writer.write(Array(String(total).utf8))
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let call = client.bidirectionalStreaming(path: "/test.Stream/Sum")
            let sent = Atomic<Int>(0)
            let sender = Task {
                for _ in 0..<Self.messageCount {
                    try await call.requests.send([UInt8](repeating: 1, count: Self.messageBytes))
                    sent.add(1, ordering: .relaxed)
                }
                call.requests.finish()
            }
            // Wait until the sender stops making progress: the server grants no more window.
            var last = -1
            while sent.load(ordering: .relaxed) != last {
                last = sent.load(ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(last < Self.messageCount / 4, "the server took \(last) messages its handler never read")
            gate.open()
            try await sender.value
            var responses: [[UInt8]] = []
            for try await response in call.responses { responses.append(response) }
            #expect(responses == [Array(String(Self.messageCount * Self.messageBytes).utf8)])
            await client.close()
        }
    }

    @Test func aHandlerEndingEarlyEndsTheCallAndTheConnectionServesOn() async throws {
        let method = ServerMethod(streamingPath: "/test.Stream/First", kind: .bidirectionalStreaming) {
            requests, _, writer in
            for try await request in requests {
                try await writer.write(request)
                return
            }
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            for _ in 0..<3 {
                let call = client.bidirectionalStreaming(path: "/test.Stream/First")
                try await call.requests.send([1])
                var responses: [[UInt8]] = []
                for try await response in call.responses { responses.append(response) }
                #expect(responses == [[1]])
                #expect(call.responses.status?.code == .ok)
                // The call is over: later requests go nowhere.
                await #expect(throws: RPCError.self) { try await call.requests.send([2]) }
            }
            await client.close()
        }
    }

    @Test func cancellingTheCallCancelsTheHandler() async throws {
        let observations = Observations()
        let method = ServerMethod(streamingPath: "/test.Stream/Wait", kind: .bidirectionalStreaming) {
            requests, _, writer in
            do {
                for try await request in requests { try await writer.write(request) }
            } catch {
                observations.record("requests-failed")
                throw error
            }
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let call = client.bidirectionalStreaming(path: "/test.Stream/Wait")
            try await call.requests.send([7])
            let reader = Task {
                for try await _ in call.responses { withUnsafeCurrentTask { $0?.cancel() } }
            }
            await expectRPCError(.cancelled) { try await reader.value }
            #expect(await observations.waitFor("requests-failed"))
            await client.close()
        }
    }

    @Test func aClientStreamingHandlerThatWritesNothingIsInternal() async throws {
        let method = ServerMethod(streamingPath: "/test.Stream/Nothing", kind: .clientStreaming) { requests, _, _ in
            for try await _ in requests {}
        }
        try await withServer(methods: [method]) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            await expectRPCError(.internalError) {
                _ = try await client.clientStreaming(path: "/test.Stream/Nothing") { requests in
                    try await requests.send([1])
                }
            }
            await client.close()
        }
    }
}
