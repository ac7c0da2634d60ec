import ContinueService
import SearchAPI
import Testing
import WireProtocol

/// Requests that protobuf-c would accept but must not be trusted, sent through the real server:
/// each gets INTERNAL naming the problem, and the server keeps serving.
@Suite struct HostileMessageTests {
    /// A `SearchRequest` whose `where` expression holds `depth` nested `not`s (depth + 1 levels).
    static func nestedSearchRequest(depth: Int) -> [UInt8] {
        // FilterExpression.not is field 4 (length-delimited); SearchRequest.where is field 7.
        var expression: [UInt8] = []
        for _ in 0..<depth {
            expression = [0x22] + varint(expression.count) + expression
        }
        return [0x3a] + varint(expression.count) + expression
    }

    static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    static let cases: [(name: String, path: String, bytes: [UInt8], message: String)] = [
        (
            "deep nesting", MethodPaths.VisualSearch.search, nestedSearchRequest(depth: 150),
            "invalid vicontinue.v1.SearchRequest: tooDeep"
        ),
        (
            "invalid UTF-8", MethodPaths.VisualSearch.search, [0x0a, 0x02, 0xc3, 0x28],
            "invalid vicontinue.v1.SearchRequest: invalidUTF8: session_id: invalid UTF-8"
        ),
        (
            "NUL inside a string", MethodPaths.VisualSearch.search, [0x0a, 0x03, 0x61, 0x00, 0x62],
            "invalid vicontinue.v1.SearchRequest: nulInString: session_id"
        ),
        (
            "truncated message", MethodPaths.Health.check, [0x0a, 0x05, 0x61],
            "invalid grpc.health.v1.HealthCheckRequest: truncated"
        ),
    ]

    @Test("hostile messages are INTERNAL and the server keeps serving", arguments: cases)
    func hostileMessage(name: String, path: String, bytes: [UInt8], message: String) async throws {
        let health = HealthService()
        try await withTestServer(methods: health.methods + DemoService.make().methods) { addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let error = await #expect(throws: RPCError.self) { try await client.unary(path: path, request: bytes) }
            #expect(error?.code == .internalError, "\(name)")
            #expect(error?.message.hasPrefix(message) == true, "\(name): \(error?.message ?? "")")
            let healthy = try await client.unary(path: MethodPaths.Health.check, request: [])
            #expect(try Health.CheckResponse(serializedBytes: healthy.message).status == .serving)
            await client.close()
        }
    }

    @Test("nesting up to the limit is accepted by the validator")
    func nestingAtTheLimitIsAccepted() throws {
        // SearchRequest → where (level 1) → 99 nots: 100 levels below the outermost message.
        let request = try SearchRequest(serializedBytes: Self.nestedSearchRequest(depth: 99))
        #expect(request.where != nil)
        #expect(throws: MessageDecodingError.self) {
            try SearchRequest(serializedBytes: Self.nestedSearchRequest(depth: 100))
        }
    }
}
