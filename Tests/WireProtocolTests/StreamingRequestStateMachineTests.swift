import Testing

@testable import WireProtocol

/// The stream state machine with client- and bidirectional-streaming methods: the handler starts
/// at the HEADERS, messages go to it as they are whole, the stream's window is withheld while it
/// lags, and every way a call ends.
@Suite struct StreamingRequestStateMachineTests {
    typealias Machine = ServerStreamStateMachine

    static let path = "/test.Service/Chat"
    static let methods = MethodTable([
        ServerMethod(streamingPath: path, kind: .bidirectionalStreaming, maxRequestBytes: 100) { requests, _, writer in
            for try await request in requests { try await writer.write(request) }
        }
    ])
    static let now = ContinuousClock.now
    /// Untaken bytes beyond which the stream's window is withheld, in these tests.
    static let bufferBytes = 20

    /// A machine whose streaming handler has started (the HEADERS are in), and the start.
    static func started(
        timeout: String? = nil, admit: () -> RPCError? = { nil }
    ) -> (Machine, Machine.HeadersAction) {
        var fields = [(":method", "POST"), (":path", path), ("content-type", "application/grpc")]
        if let timeout { fields.append(("grpc-timeout", timeout)) }
        var machine = Machine()
        for (name, value) in fields {
            var name = name
            var value = value
            _ = name.withUTF8 { name in
                value.withUTF8 { value in
                    machine.receiveHeader(name: name, value: value, methods: methods, maxHeaderListSize: 8192)
                }
            }
        }
        let action = machine.requestHeadersEnded(
            refuseNewCalls: false, enabledCompression: [], acceptEncodingHeader: "identity", now: now,
            requestBufferBytes: bufferBytes, admit: admit)
        return (machine, action)
    }

    static func feed(_ machine: inout Machine, _ bytes: [UInt8], budget: Int = 1 << 20) -> Machine.DataAction {
        bytes.withUnsafeBufferPointer { machine.receiveData($0, budget: budget) }
    }

    static func envelope(_ message: [UInt8]) -> [UInt8] {
        ServerStreamStateMachineTests.envelope(message)
    }

    /// The messages and counts of a `.deliver`, or `nil`.
    static func delivered(_ action: Machine.DataAction) -> (messages: [[UInt8]], bytes: Int, acknowledged: Int)? {
        if case .deliver(let messages, let bytes, let acknowledged) = action { return (messages, bytes, acknowledged) }
        return nil
    }

    static func endsRequests(_ action: Machine.EndOfRequestAction) -> Bool {
        if case .endRequests = action { return true }
        return false
    }

    static func discarded(_ action: Machine.DataAction) -> Bool {
        if case .none = action { return true }
        return false
    }

    @Test func theHandlerStartsAtTheHeadersBeforeAnyMessage() throws {
        let (machine, action) = Self.started(timeout: "5S")
        guard case .startStreaming(let start) = action else {
            Issue.record("expected the handler to start, got \(action)")
            return
        }
        #expect(start.method.path == Self.path)
        #expect(start.request.isEmpty)
        #expect(start.deadline == Self.now + .seconds(5))
        #expect(machine.isRunning)
        #expect(!machine.isReceiving)
    }

    @Test func aCallOverThePerClientCapIsRefusedAtTheHeaders() throws {
        let (machine, action) = Self.started(admit: { RPCError(code: .resourceExhausted, message: "cap") })
        guard case .reject(let rejection) = action else {
            Issue.record("expected a rejection, got \(action)")
            return
        }
        #expect(rejection.error.code == .resourceExhausted)
        #expect(!machine.isRunning)
    }

    @Test func messagesReachTheHandlerAsTheyAreWholeAndInOrder() throws {
        var (machine, _) = Self.started()
        let first = Self.envelope([1]) + Self.envelope([2, 2])
        let second = Self.envelope([3, 3, 3])
        let one = try #require(Self.delivered(Self.feed(&machine, first)))
        #expect(one.messages == [[1], [2, 2]])
        #expect(one.bytes == first.count)
        // A message split across DATA frames arrives once its last byte does.
        let head = try #require(Self.delivered(Self.feed(&machine, Array(second.prefix(4)))))
        #expect(head.messages.isEmpty)
        let tail = try #require(Self.delivered(Self.feed(&machine, Array(second.dropFirst(4)))))
        #expect(tail.messages == [[3, 3, 3]])
    }

    @Test func theWindowIsWithheldWhileTheHandlerLagsAndReopenedAsItTakes() throws {
        var (machine, _) = Self.started()
        let message = Self.envelope(Array(repeating: 7, count: 7))  // 12 bytes on the wire
        let first = try #require(Self.delivered(Self.feed(&machine, message)))
        #expect(first.acknowledged == 12)
        // 24 untaken bytes > 20: the client gets no more window for this stream.
        let second = try #require(Self.delivered(Self.feed(&machine, message)))
        #expect(second.acknowledged == 0)
        let third = try #require(Self.delivered(Self.feed(&machine, message)))
        #expect(third.acknowledged == 0)
        // Taking one leaves 24 untaken: still withheld, but its bytes leave the budget.
        let firstTaken = machine.requestsTaken(1)
        #expect(firstTaken == Machine.Taken(releasedBytes: 12, acknowledged: 0))
        // Taking another leaves 12: the withheld 24 are acknowledged together.
        let secondTaken = machine.requestsTaken(1)
        #expect(secondTaken == Machine.Taken(releasedBytes: 12, acknowledged: 24))
        let thirdTaken = machine.requestsTaken(1)
        #expect(thirdTaken == Machine.Taken(releasedBytes: 12, acknowledged: 0))
    }

    @Test func aChunkOverTheConnectionsBudgetStopsTheHandler() throws {
        var (machine, _) = Self.started()
        let action = Self.feed(&machine, Self.envelope([1, 2, 3]), budget: 4)
        guard case .cancelHandler(let error, let finish) = action else {
            Issue.record("expected the handler to stop, got \(action)")
            return
        }
        #expect(error.code == .resourceExhausted)
        #expect(finish.status?.code == .resourceExhausted)
    }

    @Test(
        "A broken message while the handler runs stops it with the status",
        arguments: [
            ([2, 0, 0, 0, 1, 9], Status.Code.internalError),  // compressed flag neither 0 nor 1
            ([0, 0, 0, 0, 101] + [UInt8](repeating: 0, count: 101), .resourceExhausted),  // over the limit
            ([1, 0, 0, 0, 1, 9], .internalError),  // compressed without an encoding
        ] as [([UInt8], Status.Code)])
    func brokenMessages(body: [UInt8], code: Status.Code) throws {
        var (machine, _) = Self.started()
        _ = try #require(Self.delivered(Self.feed(&machine, Self.envelope([1]))))
        let action = Self.feed(&machine, body)
        guard case .cancelHandler(let error, let finish) = action else {
            Issue.record("expected the handler to stop, got \(action)")
            return
        }
        #expect(error.code == code)
        guard case .trailersOnly(let status, _) = finish else {
            Issue.record("expected Trailers-Only, got \(finish)")
            return
        }
        #expect(status.code == code)
        // The client is still sending: it is reset once our END_STREAM is out, and the bytes of
        // the message it had sent are released with the stream.
        let reset = machine.endStreamSent()
        #expect(reset)
        let closed = machine.streamClosed(reason: RPCError(code: .cancelled, message: ""))
        #expect(closed.releasedBytes == 6)
    }

    @Test func theClientHalfClosingEndsTheRequestStream() throws {
        var (machine, _) = Self.started()
        _ = Self.feed(&machine, Self.envelope([1]))
        let ended = machine.requestEnded(admit: { nil })
        #expect(Self.endsRequests(ended))
        // Nothing after END_STREAM: the handler still runs and answers.
        #expect(machine.isRunning)
        guard
            case .trailersOnly = machine.handlerFinished(
                status: .ok, trailing: [:], unaryResponse: nil, initialMetadata: nil, encoding: nil)
        else {
            Issue.record("expected Trailers-Only")
            return
        }
        let reset = machine.endStreamSent()
        #expect(!reset)
    }

    @Test func aRequestEndingInsideAMessageStopsTheHandlerWithInternal() throws {
        var (machine, _) = Self.started()
        _ = Self.feed(&machine, [0, 0, 0, 0, 9, 1])
        guard case .cancelHandler(let error, _) = machine.requestEnded(admit: { nil }) else {
            Issue.record("expected the handler to stop")
            return
        }
        #expect(error.code == .internalError)
    }

    @Test func aHandlerEndingEarlyAnswersAndLaterRequestsAreDiscarded() throws {
        var (machine, _) = Self.started()
        _ = Self.feed(&machine, Self.envelope([1]))
        guard case .submitHeaders(.plain) = machine.handlerWrote([0, 0, 0, 0, 0], initialMetadata: nil, encoding: nil)
        else {
            Issue.record("expected the response HEADERS")
            return
        }
        guard
            case .trailers(let status, resumeData: false) = machine.handlerFinished(
                status: .ok, trailing: [:], unaryResponse: nil, initialMetadata: nil, encoding: nil)
        else {
            Issue.record("expected trailers after the queued message")
            return
        }
        #expect(status.code == .ok)
        #expect(Self.discarded(Self.feed(&machine, Self.envelope([2]))))
        let taken = machine.requestsTaken(1)
        #expect(taken == Machine.Taken(releasedBytes: 0, acknowledged: 0))
        // Our END_STREAM goes out while the client still sends: it is reset (NO_ERROR).
        let reset = machine.endStreamSent()
        #expect(reset)
        let closed = machine.streamClosed(reason: RPCError(code: .cancelled, message: ""))
        #expect(closed.releasedBytes == 6)
    }

    @Test func theDeadlineStopsTheHandlerWhileRequestsStillArrive() throws {
        var (machine, _) = Self.started(timeout: "1m")
        _ = Self.feed(&machine, Self.envelope([1]))
        guard case .cancelHandler(let error, let finish) = machine.deadlineExpired() else {
            Issue.record("expected the handler to stop")
            return
        }
        #expect(error.code == .deadlineExceeded)
        #expect(finish.status?.code == .deadlineExceeded)
        #expect(Self.discarded(Self.feed(&machine, Self.envelope([2]))))
    }

    @Test func aClientResetCancelsTheHandlerAndReleasesItsUntakenBytes() throws {
        var (machine, _) = Self.started()
        _ = Self.feed(&machine, Self.envelope([1, 2]))
        _ = Self.feed(&machine, Self.envelope([3]))
        let taken = machine.requestsTaken(1)
        #expect(taken.releasedBytes == 7)
        let teardown = machine.streamClosed(reason: RPCError(code: .cancelled, message: "the client cancelled"))
        #expect(teardown.cancelHandler?.code == .cancelled)
        #expect(teardown.unfinished?.code == .cancelled)
        #expect(teardown.releasedBytes == 6)
    }

    @Test func aClientStreamingAnswerLeavesWithItsStatus() throws {
        var (machine, _) = Self.started()
        let ended = machine.requestEnded(admit: { nil })
        #expect(Self.endsRequests(ended))
        let action = machine.handlerFinished(
            status: .ok, trailing: [:], unaryResponse: [0, 0, 0, 0, 0], initialMetadata: nil, encoding: nil)
        guard case .submitHeadersThenTrailers(.plain, let status) = action else {
            Issue.record("expected HEADERS, the message and trailers, got \(action)")
            return
        }
        #expect(status.code == .ok)
    }
}
