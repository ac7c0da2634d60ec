import Testing

@testable import WireProtocol

/// Requests that are not gRPC on an HTTP/2 stream (Connect, gRPC-Web, `/healthz`, files): the
/// stream state machine reads them whole for the web gateway and sends its answer without
/// trailers, event by event.
@Suite struct WebRequestStateMachineTests {
    typealias Machine = ServerStreamStateMachine
    typealias Tests = ServerStreamStateMachineTests

    /// A machine fed `headers`, then the end of the header block with web requests served.
    static func machine(_ headers: [(String, String)], webBodyLimit: Int? = 64) -> (Machine, Machine.HeadersAction) {
        var machine = Machine()
        for (name, value) in headers { _ = Tests.receive(&machine, name, value) }
        let action = machine.requestHeadersEnded(
            refuseNewCalls: false, enabledCompression: [], acceptEncodingHeader: "identity", now: Tests.now,
            webBodyLimit: webBodyLimit)
        return (machine, action)
    }

    @Test(
        "a request that is not gRPC is read whole for the web gateway, in HTTP/1.1's terms",
        arguments: [
            ("GET", "/healthz", nil, [UInt8]()),
            ("POST", Tests.path, "application/json", Array(#"{"x":1}"#.utf8)),
            ("POST", Tests.path, "application/grpc-web+proto", [0, 0, 0, 0, 1, 7]),
            ("GET", Tests.path + "?encoding=json&message=%7B%7D", nil, []),
            ("OPTIONS", Tests.path, nil, []),
        ] as [(String, String, String?, [UInt8])])
    func readForTheGateway(method: String, target: String, contentType: String?, body: [UInt8]) throws {
        var headers = [(":method", method), (":path", target), (":authority", "127.0.0.1:50051")]
        if let contentType { headers.append(("content-type", contentType)) }
        headers.append(("origin", "http://127.0.0.1:50051"))
        var (machine, action) = Self.machine(headers)
        guard case .acceptWeb = action else { throw Failure("not read for the gateway: \(action)") }
        #expect(machine.isReceiving)
        if !body.isEmpty {
            guard case .buffered(let count) = Tests.feed(&machine, body) else { throw Failure("not buffered") }
            #expect(count == body.count)
        }
        guard case .answerWeb(let request, let released) = machine.requestEnded(admit: { nil }) else {
            throw Failure("not handed to the gateway")
        }
        #expect(request.method == method)
        #expect(request.target == target)
        #expect(request.contentType == contentType)
        #expect(request.authority == "127.0.0.1:50051")
        #expect(request.body == body)
        #expect(released == body.count)
        #expect(machine.metadata.first(named: "origin") == "http://127.0.0.1:50051")
        #expect(!machine.isReceiving)
    }

    @Test("without the web protocols, a request that is not gRPC still gets a bare 405 or 415")
    func webDisabled() throws {
        let (_, get) = Self.machine([(":method", "GET"), (":path", "/healthz")], webBodyLimit: nil)
        guard case .respondHTTP(405) = get else { throw Failure("\(get)") }
        let (_, json) = Self.machine(
            [(":method", "POST"), (":path", Tests.path), ("content-type", "application/json")], webBodyLimit: nil)
        guard case .respondHTTP(415) = json else { throw Failure("\(json)") }
    }

    @Test("a gRPC request is not the gateway's, web protocols or not")
    func gRPCStaysGRPC() throws {
        let (machine, action) = Self.machine(
            [(":method", "POST"), (":path", Tests.path), ("content-type", "application/grpc+proto")])
        guard case .accept = action else { throw Failure("\(action)") }
        #expect(machine.isReceiving)
    }

    @Test("a body over the limit is refused 413 at once, its bytes released, and the client reset once answered")
    func overTheLimit() throws {
        var (machine, _) = Self.machine([(":method", "POST"), (":path", "/upload"), ("content-type", "text/plain")])
        _ = Tests.feed(&machine, [UInt8](repeating: 1, count: 40))
        guard
            case .refuseWeb(let status, let reason, let released) = Tests.feed(
                &machine, [UInt8](repeating: 1, count: 40))
        else { throw Failure("not refused") }
        #expect(status == 413)
        #expect(reason == "the request body is larger than 64 bytes\n")
        #expect(released == 40)
        #expect(machine.webAnswered(body: Array(reason.utf8)) == .submitHeadersWithBody)
        var buffer = [UInt8](repeating: 0, count: 100)
        let pull = buffer.withUnsafeMutableBufferPointer { machine.pullResponse(into: $0.baseAddress!, length: 100) }
        #expect(pull.finished && pull.copied == reason.utf8.count && pull.end == nil)
        let reset = machine.endStreamSent()
        #expect(reset, "the client was still sending: reset it")
    }

    @Test("a body past the connection's budget is refused 503")
    func overTheBudget() throws {
        var (machine, _) = Self.machine([(":method", "POST"), (":path", "/upload"), ("content-type", "text/plain")])
        guard case .refuseWeb(503, _, 0) = Tests.feed(&machine, [1, 2, 3], budget: 2) else {
            throw Failure("not refused")
        }
    }

    @Test("the answer's body goes out in pieces, then the stream ends without trailers")
    func answerInPieces() throws {
        var (machine, _) = Self.machine([(":method", "GET"), (":path", "/healthz")])
        _ = machine.requestEnded(admit: { nil })
        #expect(machine.webAnswered(body: Array("0123456789".utf8)) == .submitHeadersWithBody)
        #expect(machine.webAnswered(body: [1]) == .none, "answered once only")
        var received = [UInt8]()
        var pulls: [Machine.Pull] = []
        while pulls.last?.finished != true {
            var buffer = [UInt8](repeating: 0, count: 4)
            let pull = buffer.withUnsafeMutableBufferPointer { machine.pullResponse(into: $0.baseAddress!, length: 4) }
            received += buffer.prefix(pull.copied)
            pulls.append(pull)
        }
        #expect(String(decoding: received, as: UTF8.self) == "0123456789")
        #expect(pulls.map(\.copied) == [4, 4, 2])
        #expect(pulls.allSatisfy { $0.end == nil && !$0.deferred })
        let reset = machine.endStreamSent()
        #expect(!reset, "the request had ended: no reset")
    }

    @Test("an answer without a body is its HEADERS alone")
    func emptyAnswer() throws {
        var (machine, _) = Self.machine([(":method", "OPTIONS"), (":path", Tests.path)])
        _ = machine.requestEnded(admit: { nil })
        #expect(machine.webAnswered(body: []) == .submitHeaders)
    }

    @Test("a client reset while the body arrives releases its bytes and reports no call; a late answer is dropped")
    func resetMidBody() throws {
        var (machine, _) = Self.machine([(":method", "POST"), (":path", "/upload"), ("content-type", "text/plain")])
        _ = Tests.feed(&machine, [1, 2, 3])
        let teardown = machine.streamClosed(reason: RPCError(code: .cancelled, message: "reset"))
        #expect(teardown.releasedBytes == 3)
        #expect(teardown.unfinished == nil && teardown.cancelHandler == nil)
        #expect(machine.webAnswered(body: [1]) == .none)
    }
}
