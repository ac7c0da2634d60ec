import ContinueService
import Foundation
import SearchAPI
import Testing
import WireProtocol

/// The per-call log of `vi-continue serve`: one line on stderr per call, filtered by `--log-level`.
extension ServeProcessTests {
    @Suite struct CallLogTests {
        /// `vi-continue: call METHOD STATUS LATENCYms id=REQUEST_ID ...`
        nonisolated(unsafe) static let linePattern = #/^vi-continue: call (\S+) ([A-Z_]+) (\d+\.\d{3})ms id=(\S+)/#

        static let query = QueryRequest(
            descriptor: SearchAPI.Descriptor(labels: [SearchAPI.Label(text: "rock", confidence: 0.9)]), limit: 3)

        /// Fields of the log lines that name `id`.
        static func lines(of server: ServerProcess, id: String) -> [(method: String, status: String, latency: Double)] {
            server.callLines.compactMap { line in
                guard let match = line.firstMatch(of: linePattern), match.4 == id else { return nil }
                return (String(match.1), String(match.2), Double(match.3) ?? -1)
            }
        }

        @Test("a call logs exactly one line with its method, status, latency and the client's x-request-id")
        func oneLinePerCall() async throws {
            let server = try ServerProcess()
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port))
            _ = try await client.unary(
                path: MethodPaths.VisualSearch.query, request: Self.query.serializedBytes(),
                metadata: ["x-request-id": "calllog-ok-1"])
            let missing = SearchRequest(sessionID: "no-such-session")
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    path: MethodPaths.VisualSearch.search, request: missing.serializedBytes(),
                    metadata: ["x-request-id": "calllog-missing-2"])
            }
            _ = try await client.unary(path: MethodPaths.Health.check, request: Health.CheckRequest().serializedBytes())
            await client.close()
            #expect(await server.waitForLine { $0.contains(MethodPaths.Health.check) } != nil)

            let ok = Self.lines(of: server, id: "calllog-ok-1")
            #expect(ok.count == 1, "\(server.callLines)")
            #expect(ok.first?.method == MethodPaths.VisualSearch.query)
            #expect(ok.first?.status == "OK")
            #expect((ok.first?.latency ?? -1) >= 0)
            let failed = Self.lines(of: server, id: "calllog-missing-2")
            #expect(failed.count == 1)
            #expect(failed.first?.status == "NOT_FOUND")
            #expect(server.callLines.first { $0.contains("calllog-missing-2") }?.contains("message=") == true)
            // Without an x-request-id the server makes one up: eight hex digits.
            let health = try #require(server.callLines.first { $0.contains(MethodPaths.Health.check) })
            let generated = try #require(health.firstMatch(of: Self.linePattern)).4
            #expect(generated.count == 8 && generated.allSatisfy(\.isHexDigit), "\(health)")
            #expect(server.callLines.count == 3, "\(server.callLines)")

            // A request id with a space or a quote cannot split the line into forged fields.
            let forging = GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port))
            _ = try await forging.unary(
                path: MethodPaths.Health.check, request: Health.CheckRequest().serializedBytes(),
                metadata: ["x-request-id": "x status=OK \"y"])
            await forging.close()
            let quoted = await server.waitForLine { $0.contains("id=\"x status=OK \\\"y\"") }
            #expect(quoted != nil, "\(server.callLines)")

            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("--log-level error leaves out OK and client-error calls but logs server faults")
        func errorLevelSuppressesOK() async throws {
            let server = try ServerProcess(["--log-level", "error"])
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port))
            _ = try await client.unary(
                path: MethodPaths.VisualSearch.query, request: Self.query.serializedBytes(),
                metadata: ["x-request-id": "quiet-ok"])
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    path: MethodPaths.VisualSearch.search, request: SearchRequest(sessionID: "nope").serializedBytes(),
                    metadata: ["x-request-id": "quiet-not-found"])
            }
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(path: "/no.Such/Method", request: [], metadata: ["x-request-id": "loud"])
            }
            await client.close()
            #expect(await server.waitForLine { $0.contains("id=loud") } != nil)
            // Lines are written before the response leaves, so the earlier calls would be there by now.
            #expect(server.callLines.count == 1, "\(server.callLines)")
            #expect(Self.lines(of: server, id: "loud").first?.status == "UNIMPLEMENTED")
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("VI_CONTINUE_LOG_LEVEL=warn logs RESOURCE_EXHAUSTED but not NOT_FOUND")
        func levelFromTheEnvironment() async throws {
            let server = try ServerProcess(environment: ["VI_CONTINUE_LOG_LEVEL": "warn"])
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: server.port))
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    path: MethodPaths.VisualSearch.search, request: SearchRequest(sessionID: "nope").serializedBytes(),
                    metadata: ["x-request-id": "env-not-found"])
            }
            // Search takes at most 4 MiB; the server refuses a bigger request on its length prefix.
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(
                    path: MethodPaths.VisualSearch.search, request: [UInt8](repeating: 0, count: (4 << 20) + 1),
                    metadata: ["x-request-id": "env-too-big"])
            }
            await client.close()
            #expect(await server.waitForLine { $0.contains("id=env-too-big") } != nil)
            #expect(Self.lines(of: server, id: "env-too-big").first?.status == "RESOURCE_EXHAUSTED")
            #expect(Self.lines(of: server, id: "env-not-found").isEmpty, "\(server.callLines)")
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }
}
