import Synchronization
import Testing

@testable import WireProtocol

/// Records what handlers observed, for tests that check cancellation.
final class Observations: Sendable {
    private let state = Mutex<[String]>([])
    func record(_ event: String) { state.withLock { $0.append(event) } }
    var events: [String] { state.withLock { $0 } }

    /// Waits (without a timing assertion) until `event` was recorded, polling briefly.
    func waitFor(_ event: String) async -> Bool {
        for _ in 0..<500 {
            if events.contains(event) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

enum TestMethods {
    static func all(_ observations: Observations) -> [ServerMethod] {
        [
            ServerMethod(path: "/test.Echo/Unary", kind: .unary) { request, context, writer in
                var initial = Metadata()
                var trailing = Metadata()
                for entry in context.requestMetadata where entry.key.hasPrefix("x-") {
                    initial.add("echo-" + entry.key, entry.value)
                    trailing.add("trailer-" + entry.key, entry.value)
                }
                writer.setInitialMetadata(initial)
                writer.setTrailingMetadata(trailing)
                try await writer.write(request)
            },
            ServerMethod(path: "/test.Echo/Stream", kind: .serverStreaming) { request, _, writer in
                // The request is a count; reply with that many messages of 100 bytes each.
                let count = request.reduce(0) { $0 << 8 | Int($1) }
                for i in 0..<count {
                    try await writer.write([UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 100))
                }
            },
            ServerMethod(path: "/test.Echo/Big", kind: .unary, maxRequestBytes: 16 << 20) { request, _, writer in
                try await writer.write(request, compression: .gzip)
            },
            ServerMethod(path: "/test.Echo/Fail", kind: .unary) { _, _, _ in
                throw RPCError(
                    code: .failedPrecondition, message: "no\tway ☃ 100%\r\n",
                    metadata: ["detail-bin": .binary([0, 1, 2])])
            },
            ServerMethod(path: "/test.Echo/Throw", kind: .unary) { _, _, _ in
                struct Oops: Error {}
                throw Oops()
            },
            ServerMethod(path: "/test.Echo/Silent", kind: .unary) { _, _, _ in },
            ServerMethod(path: "/test.Echo/StreamThenFail", kind: .serverStreaming) { _, _, writer in
                writer.setInitialMetadata(["stage": "started"])
                for i in 0..<3 { try await writer.write([UInt8(i)]) }
                writer.setTrailingMetadata(["partial": "3"])
                throw RPCError(code: .aborted, message: "stopped after 3")
            },
            ServerMethod(path: "/test.Echo/Slow", kind: .unary) { request, _, writer in
                observations.record("slow-started")
                try await Task.sleep(for: .milliseconds(300))
                try await writer.write(request)
            },
            ServerMethod(path: "/test.Echo/Flood", kind: .serverStreaming) { _, _, writer in
                do {
                    for i in 0..<200 {
                        try await writer.write([UInt8](repeating: 1, count: 64 * 1024))
                        observations.record("flood-\(i)")
                    }
                } catch {
                    observations.record("flood-stopped")
                    throw error
                }
            },
            ServerMethod(path: "/test.Echo/Sleep", kind: .unary) { request, _, writer in
                observations.record("sleep-started")
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    observations.record("sleep-cancelled")
                    throw error
                }
                try await writer.write(request)
            },
        ]
    }
}

/// Runs a server for the duration of `body`, then shuts it down gracefully and waits for it.
func withServer<R: Sendable>(
    _ configuration: ServerConfiguration = ServerConfiguration(
        tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 2),
    methods: [ServerMethod]? = nil,
    observations: Observations = Observations(),
    _ body: @Sendable (GRPCServer, ListeningAddresses) async throws -> R
) async throws -> R {
    let server = GRPCServer(configuration: configuration, methods: methods ?? TestMethods.all(observations))
    return try await withThrowingTaskGroup(of: R?.self) { group in
        group.addTask {
            try await server.run()
            return nil
        }
        let addresses = try await server.waitUntilListening()
        do {
            let result = try await body(server, addresses)
            server.beginGracefulShutdown()
            try await group.waitForAll()
            return result
        } catch {
            server.beginGracefulShutdown()
            try await group.waitForAll()
            throw error
        }
    }
}

@discardableResult
func expectRPCError(
    _ code: Status.Code, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
)
    async -> RPCError?
{
    do {
        try await body()
        Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as RPCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected RPCError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
