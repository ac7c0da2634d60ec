import CNghttp2
import ContinueService
import Foundation
import H2TestClient
import SearchAPI
import Testing
import WireProtocol

/// The connection limits of `vi-continue serve`, set by flags or `VI_CONTINUE_*`, seen from raw
/// HTTP/2 clients.
extension ServeProcessTests {
    @Suite struct LimitsTests {
        /// An empty message in gRPC framing: a Health/Check request.
        static let emptyMessage: [UInt8] = [0, 0, 0, 0, 0]

        /// Whether a new raw connection is served (a health check answers OK).
        static func isServed(port: Int) async -> Bool {
            guard let raw = try? RawH2Client(port: port, waitsForServerStreamLimit: false),
                let reply = try? await raw.call(path: MethodPaths.Health.check, body: emptyMessage, seconds: 3)
            else { return false }
            return reply.grpcStatus == 0
        }

        @Test("VI_CONTINUE_MAX_CONNECTIONS: a connection over the limit is closed at once; a freed slot is reused")
        func maxConnections() async throws {
            let server = try ServerProcess(environment: ["VI_CONTINUE_MAX_CONNECTIONS": "3"])
            var admitted: [RawH2Client] = []
            for _ in 0..<3 {
                let raw = try RawH2Client(port: server.port, waitsForServerStreamLimit: false)
                let reply = try await raw.call(path: MethodPaths.Health.check, body: Self.emptyMessage)
                #expect(reply.grpcStatus == 0)
                admitted.append(raw)
            }
            let extra = try RawH2Client(port: server.port, waitsForServerStreamLimit: false)
            try await extra.pump(seconds: 5) { extra.connectionClosed }
            #expect(extra.connectionClosed)
            #expect(extra.replies.values.allSatisfy { $0.grpcStatus == nil })

            admitted.removeFirst()  // closes its socket; the server frees the slot when it sees that
            var servedAgain = false
            for _ in 0..<50 where !servedAgain {
                servedAgain = await Self.isServed(port: server.port)
                if !servedAgain { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(servedAgain)
            admitted.removeAll()
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("--max-streams-per-connection refuses streams beyond the limit with REFUSED_STREAM")
        func maxStreams() async throws {
            let server = try ServerProcess(["--max-streams-per-connection", "4"])
            do {
                let raw = try RawH2Client(port: server.port, waitsForServerStreamLimit: false)
                // All six go out before the server's SETTINGS arrive, so the client cannot hold any back.
                let ids = (0..<6).map { _ in raw.open(path: MethodPaths.VisualSearch.query, body: [], endStream: false)
                }
                try await raw.pump { ids.filter { raw.replies[$0]!.resetCode != nil }.count >= 2 }
                let refused = ids.filter { raw.replies[$0]!.resetCode == NGHTTP2_REFUSED_STREAM.rawValue }
                #expect(refused.count == 2)
                #expect(ids.filter { raw.replies[$0]!.closed }.count == 2, "streams within the limit stay open")
                #expect(await Self.isServed(port: server.port))
                // The raw client goes here: its four unfinished requests would hold up the drain.
            }
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test(
            "--idle-timeout: GOAWAY and close for a connection without calls, and for one holding only stalled streams")
        func idleTimeout() async throws {
            let server = try ServerProcess(["--idle-timeout", "0.3"])
            let idle = try RawH2Client(port: server.port, waitsForServerStreamLimit: false)
            let stalled = try RawH2Client(port: server.port, waitsForServerStreamLimit: false)
            let halfOpen = (0..<2).map { _ in
                stalled.open(path: MethodPaths.VisualSearch.query, body: [], endStream: false)
            }
            try await stalled.pump { true }
            let start = ContinuousClock.now
            try await idle.pump { idle.connectionClosed }
            #expect(idle.goawayCode == NGHTTP2_NO_ERROR.rawValue)
            #expect(ContinuousClock.now - start >= .milliseconds(250), "closed before the idle timeout")
            try await stalled.pump { stalled.connectionClosed }
            #expect(stalled.goawayCode == NGHTTP2_NO_ERROR.rawValue)
            for id in halfOpen { #expect(stalled.replies[id]!.resetCode == NGHTTP2_CANCEL.rawValue) }
            // A well-behaved client simply reconnects.
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: server.port))
            #expect(try await client.checkHealth().status == .serving)
            await client.close()
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("serve raises its soft limit on open files to the hard limit, for thousands of connections")
        func openFileLimit() async throws {
            let server = try ServerProcess(softOpenFileLimit: 256)
            let limits = try #require(server.openFileLimits())
            #expect(limits.soft == limits.hard, "soft \(limits.soft), hard \(limits.hard)")
            #expect(limits.soft > 256)
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test(
            "a limit that does not fit is a usage error naming the option",
            arguments: [
                ["--max-connections", "0"], ["--max-streams-per-connection", "many"], ["--idle-timeout", "-1"],
                ["--log-level", "chatty"], ["--busy-poll", "-1"], ["--busy-poll", "soon"], ["--query-cache", "-1"],
                ["--query-cache", "lots"], ["--max-calls-per-peer", "0"], ["--evaluation-cache", "-1"],
                ["--evaluation-cache", "lots"],
            ])
        func badLimits(_ arguments: [String]) throws {
            let (status, text) = try ServerProcess.failedStart(["--store", "memory"] + arguments)
            #expect(status == 2)
            #expect(text.contains("error: \(arguments[0]) must be"), "\(text)")
        }
    }
}
