import Testing

@testable import WireProtocol

/// The per-stream state machine on its own: hostile requests, deadlines, resets and the response
/// queue, event by event, with no socket and no nghttp2.
@Suite struct ServerStreamStateMachineTests {
    typealias Machine = ServerStreamStateMachine

    static let path = "/test.Service/Echo"
    static let methods = MethodTable([
        ServerMethod(unaryPath: path, maxRequestBytes: 100) { request, _ in request }
    ])
    static let now = ContinuousClock.now

    /// A stream machine fed `headers` (a well-formed gRPC request unless overridden), then the
    /// end of the header block.
    static func machine(
        _ overrides: [(String, String)] = [], refuseNewCalls: Bool = false
    ) -> (Machine, Machine.HeadersAction) {
        var fields = [(":method", "POST"), (":path", path), ("content-type", "application/grpc")]
        for (name, value) in overrides {
            fields.removeAll { $0.0 == name }
            fields.append((name, value))
        }
        var machine = Machine()
        for (name, value) in fields { _ = receive(&machine, name, value) }
        let action = machine.requestHeadersEnded(
            refuseNewCalls: refuseNewCalls, enabledCompression: [.gzip], acceptEncodingHeader: "identity,gzip",
            now: now)
        return (machine, action)
    }

    static func receive(_ machine: inout Machine, _ name: String, _ value: String, limit: Int = 8192) -> Bool {
        var name = name
        var value = value
        return name.withUTF8 { name in
            value.withUTF8 { value in
                machine.receiveHeader(name: name, value: value, methods: methods, maxHeaderListSize: limit)
            }
        }
    }

    static func feed(_ machine: inout Machine, _ bytes: [UInt8], budget: Int = 1 << 20) -> Machine.DataAction {
        bytes.withUnsafeBufferPointer { machine.receiveData($0, budget: budget) }
    }

    /// A length-prefixed message.
    static func envelope(_ message: [UInt8], compressed: Bool = false) -> [UInt8] {
        let count = message.count
        return [
            compressed ? 1 : 0, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF),
            UInt8(count & 0xFF),
        ] + message
    }

    /// A machine whose handler has started on the request [1, 2, 3].
    static func running() throws -> Machine {
        var (machine, _) = machine()
        _ = feed(&machine, envelope([1, 2, 3]))
        guard case .startHandler = machine.requestEnded(admit: { nil }) else {
            Issue.record("the handler did not start")
            return machine
        }
        return machine
    }

    static func rejection(_ action: Machine.HeadersAction) -> Machine.Rejection? {
        if case .reject(let rejection) = action { return rejection }
        return nil
    }

    static func rejection(_ action: Machine.DataAction) -> Machine.Rejection? {
        if case .reject(let rejection) = action { return rejection }
        return nil
    }

    static func rejection(_ action: Machine.EndOfRequestAction) -> Machine.Rejection? {
        if case .reject(let rejection) = action { return rejection }
        return nil
    }

    /// Pulls everything nghttp2 would take, 4 bytes at a time.
    static func drain(_ machine: inout Machine) -> (bytes: [UInt8], end: Machine.ResponseEnd?, deferred: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4)
        while true {
            let pull = buffer.withUnsafeMutableBufferPointer { machine.pullResponse(into: $0.baseAddress!, length: 4) }
            bytes += buffer.prefix(pull.copied)
            if pull.end != nil || pull.deferred { return (bytes, pull.end, pull.deferred) }
        }
    }

    // MARK: Requests

    @Test func aWellFormedCallStartsItsHandlerOnceTheRequestEnds() throws {
        var (machine, action) = Self.machine([("x-user", "ada")])
        guard case .accept(let deadline, _) = action else { throw Failure("not accepted: \(action)") }
        #expect(deadline == nil)
        guard case .buffered(let count) = Self.feed(&machine, Self.envelope([1, 2, 3])) else {
            throw Failure("not buffered")
        }
        #expect(count == 8)
        guard case .startHandler(let start) = machine.requestEnded(admit: { nil }) else {
            throw Failure("not started")
        }
        #expect(start.request == [1, 2, 3])
        #expect(start.releasedBytes == 8)
        #expect(start.method.path == Self.path)
        #expect(machine.isRunning)
        #expect(machine.metadata.first(named: "x-user") == "ada")
    }

    @Test func aRequestSplitAcrossDataFramesIsReassembled() throws {
        var (machine, _) = Self.machine()
        let bytes = Self.envelope([9, 8, 7, 6, 5])
        for byte in bytes { _ = Self.feed(&machine, [byte]) }
        guard case .startHandler(let start) = machine.requestEnded(admit: { nil }) else {
            throw Failure("not started")
        }
        #expect(start.request == [9, 8, 7, 6, 5])
        #expect(start.releasedBytes == bytes.count)
    }

    @Test(
        "a request that is not gRPC gets an HTTP status alone",
        arguments: [
            (":method", "GET", 405), ("content-type", "text/plain", 415), ("content-type", "application/grpcx", 415),
        ])
    func notGRPC(name: String, value: String, status: Int) throws {
        let (machine, action) = Self.machine([(name, value)])
        guard case .respondHTTP(let answered) = action else { throw Failure("not an HTTP answer: \(action)") }
        #expect(answered == status)
        #expect(!machine.isReceiving)
    }

    @Test(
        "headers that make a call impossible are answered at once, Trailers-Only",
        arguments: [
            ([(":path", "/nobody.Home/Nothing")], Status.Code.unimplemented, "method not found: /nobody.Home/Nothing"),
            ([("grpc-timeout", "abc")], .internalError, "malformed grpc-timeout: abc"),
            ([("grpc-timeout", "123456789S")], .internalError, "malformed grpc-timeout: 123456789S"),
            ([("grpc-encoding", "br")], .unimplemented, "compression algorithm \"br\" is not supported"),
            ([("grpc-encoding", "deflate")], .unimplemented, "compression algorithm \"deflate\" is not supported"),
        ])
    func refusedAtTheHeaders(headers: [(String, String)], code: Status.Code, message: String) throws {
        let (machine, action) = Self.machine(headers)
        let rejection = try #require(Self.rejection(action))
        #expect(rejection.error.code == code)
        #expect(rejection.error.message == message)
        #expect(rejection.releasedBytes == 0)
        #expect(!machine.isReceiving)
    }

    @Test func anUnsupportedEncodingListsWhatIsSupported() throws {
        let rejection = try #require(Self.rejection(Self.machine([("grpc-encoding", "br")]).1))
        #expect(rejection.extraHeaders.map(\.0) == ["grpc-accept-encoding"])
        #expect(rejection.extraHeaders.map(\.1) == ["identity,gzip"])
    }

    @Test func aDrainingConnectionRefusesNewCallsAsUnavailable() throws {
        let rejection = try #require(Self.rejection(Self.machine(refuseNewCalls: true).1))
        #expect(rejection.error.code == .unavailable)
        #expect(rejection.error.message == "the server is shutting down")
    }

    @Test func aGRPCTimeoutBecomesTheCallsDeadline() throws {
        guard case .accept(let deadline, _) = Self.machine([("grpc-timeout", "250m")]).1 else {
            throw Failure("not accepted")
        }
        #expect(deadline == Self.now + .milliseconds(250))
    }

    @Test func aHeaderListOverTheLimitFailsTheStream() {
        var machine = Machine()
        #expect(Self.receive(&machine, "x-big", String(repeating: "a", count: 60), limit: 100))
        #expect(!Self.receive(&machine, "x-big", String(repeating: "a", count: 60), limit: 100))
    }

    @Test func theClientsTrailersAreIgnored() throws {
        var (machine, _) = Self.machine()
        #expect(Self.receive(&machine, ":path", "/nobody.Home/Nothing"))
        guard
            case .none = machine.requestHeadersEnded(
                refuseNewCalls: false, enabledCompression: [], acceptEncodingHeader: "", now: Self.now)
        else { throw Failure("a second header block was judged") }
        #expect(machine.path == Self.path)
    }

    @Test(
        "hostile bodies are answered with a status and release what the stream held",
        arguments: [
            (
                [0, 0, 0, 0, 200] as [UInt8], Status.Code.resourceExhausted,
                "message of 200 bytes exceeds the limit of 100 bytes"
            ),
            ([2, 0, 0, 0, 1, 0], .internalError, "invalid compressed-flag byte 2"),
            (envelope([1], compressed: true), .internalError, "compressed flag set but no grpc-encoding was sent"),
            (envelope([1]) + envelope([2]), .unimplemented, "expected one request message, received more"),
        ])
    func hostileBodies(body: [UInt8], code: Status.Code, message: String) throws {
        var (machine, _) = Self.machine()
        _ = Self.feed(&machine, [body[0]])
        let rejection = try #require(Self.rejection(Self.feed(&machine, Array(body.dropFirst()))))
        #expect(rejection.error.code == code)
        #expect(rejection.error.message == message)
        // The connection counted the first byte only: the rejected chunk never was.
        #expect(rejection.releasedBytes == 1)
        guard case .none = Self.feed(&machine, [1, 2, 3]) else { throw Failure("data after the answer was taken") }
    }

    @Test func anOversizedMessageIsRefusedOnItsLengthPrefixAlone() throws {
        var (machine, _) = Self.machine()
        let rejection = try #require(Self.rejection(Self.feed(&machine, [0, 0x7F, 0xFF, 0xFF, 0xFF])))
        #expect(rejection.error.code == .resourceExhausted)
    }

    @Test func aChunkOverTheConnectionsBudgetIsResourceExhausted() throws {
        var (machine, _) = Self.machine()
        _ = Self.feed(&machine, [0, 0, 0, 0, 10])
        let rejection = try #require(Self.rejection(Self.feed(&machine, [1, 2, 3], budget: 2)))
        #expect(rejection.error.code == .resourceExhausted)
        #expect(rejection.error.message == "too many request bytes in flight on this connection")
        #expect(rejection.releasedBytes == 5)
    }

    @Test(
        "a request that ends wrongly is answered",
        arguments: [
            ([] as [UInt8], Status.Code.unimplemented, "expected one request message, received none"),
            ([0, 0, 0, 0, 3, 1], .internalError, "request ended inside a message"),
        ])
    func badEnds(body: [UInt8], code: Status.Code, message: String) throws {
        var (machine, _) = Self.machine()
        _ = Self.feed(&machine, body)
        let rejection = try #require(Self.rejection(machine.requestEnded(admit: { nil })))
        #expect(rejection.error.code == code)
        #expect(rejection.error.message == message)
        #expect(rejection.releasedBytes == body.count)
        // The request is over, so no reset follows the answer.
        let reset = machine.endStreamSent()
        #expect(!reset)
    }

    @Test func aCallOverThePerClientCapIsAnsweredWithTheCapsError() throws {
        var (machine, _) = Self.machine()
        _ = Self.feed(&machine, Self.envelope([1]))
        var asked = 0
        let refusal = RPCError(code: .resourceExhausted, message: "too many")
        let rejection = try #require(
            Self.rejection(
                machine.requestEnded(admit: {
                    asked += 1
                    return refusal
                })))
        #expect(asked == 1)
        #expect(rejection.error.message == "too many")
        #expect(rejection.releasedBytes == 6)
    }

    @Test func aClientStillSendingAfterTheAnswerIsResetOnceOurEndStreamIsOut() {
        var (machine, _) = Self.machine([(":path", "/nobody.Home/Nothing")])
        let first = machine.endStreamSent()
        let second = machine.endStreamSent()
        #expect(first)
        #expect(!second)
    }

    @Test func aClientThatEndedItsRequestIsNotReset() {
        var (machine, _) = Self.machine([(":method", "GET")])
        _ = machine.requestEnded(admit: { nil })
        let reset = machine.endStreamSent()
        #expect(!reset)
    }

    // MARK: Deadlines and teardown

    @Test func theDeadlineWhileReceivingAnswersDeadlineExceeded() throws {
        var (machine, _) = Self.machine([("grpc-timeout", "1S")])
        _ = Self.feed(&machine, [0, 0])
        guard case .reject(let rejection) = machine.deadlineExpired() else { throw Failure("not rejected") }
        #expect(rejection.error.code == .deadlineExceeded)
        #expect(rejection.releasedBytes == 2)
        guard case .none = machine.deadlineExpired() else { throw Failure("expired twice") }
    }

    @Test func theDeadlineWhileTheHandlerRunsCancelsItAndSendsTheStatusAlone() throws {
        var machine = try Self.running()
        guard case .cancelHandler(let error, let finish) = machine.deadlineExpired() else {
            throw Failure("handler not cancelled")
        }
        #expect(error.code == .deadlineExceeded)
        guard case .trailersOnly(let status, _) = finish else { throw Failure("not Trailers-Only: \(finish)") }
        #expect(status.code == .deadlineExceeded)
        // The handler's late answer goes nowhere.
        guard
            case .none = machine.handlerFinished(
                status: .ok, trailing: [:], unaryResponse: [1], initialMetadata: nil, encoding: nil)
        else { throw Failure("a late answer was sent") }
    }

    @Test func theDeadlineAfterTheFirstMessageDropsTheRestAndSendsTrailers() throws {
        var machine = try Self.running()
        _ = machine.handlerWrote([1, 2, 3, 4, 5, 6], initialMetadata: nil, encoding: nil)
        guard case .cancelHandler(_, .trailers(let status, _)) = machine.deadlineExpired() else {
            throw Failure("no trailers")
        }
        #expect(status.code == .deadlineExceeded)
        let drained = Self.drain(&machine)
        #expect(drained.bytes.isEmpty)
        #expect(drained.end?.status.code == .deadlineExceeded)
    }

    @Test func aResetWhileTheHandlerRunsCancelsItAndRecordsTheCall() throws {
        var machine = try Self.running()
        let reason = RPCError(code: .cancelled, message: "the client cancelled the call")
        let teardown = machine.streamClosed(reason: reason)
        #expect(teardown.unfinished?.code == .cancelled)
        #expect(teardown.cancelHandler?.message == reason.message)
        #expect(machine.isClosed)
        guard case .none = machine.handlerWrote([1], initialMetadata: nil, encoding: nil) else {
            throw Failure("wrote to a closed stream")
        }
    }

    @Test func aConnectionClosingMidRequestReleasesTheStreamsBytes() {
        var (machine, _) = Self.machine()
        _ = Self.feed(&machine, [0, 0, 0, 0, 9, 1, 2])
        let teardown = machine.streamClosed(reason: RPCError(code: .cancelled, message: "connection closed"))
        #expect(teardown.releasedBytes == 7)
        #expect(teardown.unfinished?.message == "connection closed")
        #expect(teardown.cancelHandler == nil)
    }

    @Test func aStreamClosedAfterItsAnswerHasNothingLeftToDo() throws {
        var machine = try Self.running()
        _ = machine.handlerFinished(status: .ok, trailing: [:], unaryResponse: [1], initialMetadata: nil, encoding: nil)
        let teardown = machine.streamClosed(reason: RPCError(code: .cancelled, message: "gone"))
        #expect(teardown.unfinished == nil)
        #expect(teardown.cancelHandler == nil)
        #expect(teardown.releasedBytes == 0)
    }

    // MARK: Responses

    @Test func aUnaryAnswerGoesOutAsHeadersDataAndTrailers() throws {
        var machine = try Self.running()
        let action = machine.handlerFinished(
            status: .ok, trailing: [:], unaryResponse: [1, 2, 3, 4, 5, 6], initialMetadata: nil, encoding: nil)
        guard case .submitHeadersThenTrailers(.plain, let status) = action else { throw Failure("\(action)") }
        #expect(status.code == .ok)
        let drained = Self.drain(&machine)
        #expect(drained.bytes == [1, 2, 3, 4, 5, 6])
        #expect(drained.end?.isPlainOK == true)
        let reset = machine.endStreamSent()
        #expect(!reset)
    }

    @Test func initialMetadataOrCompressionNeedCustomHeaders() throws {
        var machine = try Self.running()
        let action = machine.handlerWrote([1], initialMetadata: ["x-a": "b"], encoding: .gzip)
        guard case .submitHeaders(.custom(let initial, let encoding)) = action else { throw Failure("\(action)") }
        #expect(initial?.first(named: "x-a") == "b")
        #expect(encoding == .gzip)
    }

    @Test func aStreamingAnswerWakesTheDataProviderOnlyWhenItWaits() throws {
        var machine = try Self.running()
        guard case .submitHeaders(.plain) = machine.handlerWrote([1, 2], initialMetadata: nil, encoding: nil) else {
            throw Failure("no headers")
        }
        guard case .queued = machine.handlerWrote([3], initialMetadata: nil, encoding: nil) else {
            throw Failure("not queued")
        }
        var drained = Self.drain(&machine)
        #expect(drained.bytes == [1, 2, 3])
        #expect(drained.deferred)
        guard case .resumeData = machine.handlerWrote([4], initialMetadata: nil, encoding: nil) else {
            throw Failure("provider not resumed")
        }
        guard
            case .trailers(_, resumeData: false) = machine.handlerFinished(
                status: Status(code: .aborted, message: "stop"), trailing: ["x-why": "test"], unaryResponse: nil,
                initialMetadata: nil, encoding: nil)
        else { throw Failure("no trailers") }
        drained = Self.drain(&machine)
        #expect(drained.bytes == [4])
        #expect(drained.end?.status.code == .aborted)
        #expect(drained.end?.trailing.first(named: "x-why") == "test")
        #expect(drained.end?.isPlainOK == false)
    }

    @Test func aHandlerThatWritesNothingEndsTrailersOnlyWithItsMetadata() throws {
        var machine = try Self.running()
        let action = machine.handlerFinished(
            status: Status(code: .notFound, message: "no"), trailing: ["x-t": "2"], unaryResponse: nil,
            initialMetadata: ["x-i": "1"], encoding: nil)
        guard case .trailersOnly(let status, let metadata) = action else { throw Failure("\(action)") }
        #expect(status.code == .notFound)
        #expect(metadata.map(\.key) == ["x-i", "x-t"])
    }

    @Test func theStatusWaitsForTheProviderAndResumesItWhenItWaited() throws {
        var machine = try Self.running()
        _ = machine.handlerWrote([1], initialMetadata: nil, encoding: nil)
        _ = Self.drain(&machine)
        guard
            case .trailers(_, resumeData: true) = machine.handlerFinished(
                status: .ok, trailing: [:], unaryResponse: nil, initialMetadata: nil, encoding: nil)
        else { throw Failure("provider not resumed for the trailers") }
        #expect(Self.drain(&machine).end?.isPlainOK == true)
    }
}

/// A test failure with a message, for `guard case` checks.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
