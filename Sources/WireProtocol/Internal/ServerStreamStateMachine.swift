/// The life of one request stream on a server connection, as a value: events go in (nghttp2
/// callbacks, the deadline timer, the handler's output), actions come out, and the caller
/// (`ServerConnection`) performs them.
///
/// Each state carries only the data that state needs, so a teardown cannot forget to reset a
/// field: leaving a state drops its data. For unary and server-streaming calls the handler
/// starts only once the request has ended, with its one message. For client- and
/// bidirectional-streaming calls it starts as soon as the HEADERS are in, and `Running` carries
/// the request side (`RequestFlow`) while the client still sends: messages go to the handler as
/// they are whole, and the stream's flow-control window is granted only as the handler takes
/// them. Either way an answer (the handler returning, an error, an HTTP status) ends the call,
/// whatever the client still sends.
///
/// Modelled on grpc-swift-nio-transport's `GRPCStreamStateMachine`; a state's payload is taken
/// out through `.modifying` while it changes, so its buffers are never copied.
struct ServerStreamStateMachine {
    enum State {
        /// HEADERS (and CONTINUATION) of the request still arriving.
        case receivingHeaders(RequestHead)
        /// The call was accepted; its request message is arriving.
        case receivingMessage(ReceivingMessage)
        /// The handler owns the call; its responses queue here until nghttp2 takes them.
        case running(Running)
        /// The status has been submitted; what is left is handing nghttp2 the queued bytes and
        /// trailers, and stopping a client that is still sending.
        case answered(Answered)
        /// A request that is not gRPC (Connect, gRPC-Web, `/healthz`, files): its body arriving,
        /// to be answered whole by the web gateway as over HTTP/1.1.
        case receivingWebRequest(WebRequest)
        /// The web gateway has the request; `requestOpen` while the client still sends (an
        /// early refusal).
        case answeringWebRequest(requestOpen: Bool)
        /// The gateway's answer is going out: nghttp2 pulls its body, then the stream ends
        /// without trailers.
        case sendingWebResponse(WebResponseBody)
        /// nghttp2 closed the stream, or the connection went away.
        case closed
        /// Only while an event changes a payload in place.
        case modifying
    }

    /// The request headers read so far; nothing is decided on them before they are complete.
    struct RequestHead {
        var headerBytes = 0
        /// Whether `:method` was POST; `nil` before it arrives.
        var isPost: Bool?
        /// Whether `content-type` is gRPC's; `nil` before it arrives.
        var hasGRPCContentType: Bool?
        var encodingName: String?
        var acceptEncoding: String?
        var timeoutText: String?
        /// `:method` when it is not POST, for a web request.
        var otherMethod: String?
        /// `content-type` when it is not gRPC's, for a web request.
        var otherContentType: String?
        /// `:authority`, a web request's `Host`.
        var authority: String?
    }

    /// A request that is not gRPC, as the web gateway reads it: the request line and the fields
    /// HTTP/2 carries apart (the rest are in ``ServerStreamStateMachine/metadata``), and the body.
    struct WebRequest {
        var method: String
        /// `:path`, with its query.
        var target: String
        var contentType: String?
        var authority: String?
        /// `grpc-timeout`, which gRPC-Web clients send.
        var timeout: String?
        var body: [UInt8] = []
        /// The largest body accepted (413 above).
        let maxBodyBytes: Int
    }

    /// The body of a web answer, as nghttp2 takes it.
    struct WebResponseBody {
        var bytes: [UInt8]
        var offset = 0
        /// The client had not ended its request when it was answered (see ``Answered``).
        var requestOpen: Bool
    }

    struct ReceivingMessage {
        let method: ServerMethod
        var deframer: MessageDeframer
        let requestEncoding: CompressionAlgorithm?
        let acceptEncoding: String?
        let deadline: ContinuousClock.Instant?
        var request: [UInt8]?
        var requestWasCompressed = false
        var requestCount = 0
        /// Request bytes counted against the connection's buffer budget.
        var bufferedBytes = 0
    }

    struct Running {
        var response = ResponseQueue()
        /// The requests of a streaming-request call; `nil` for unary and server streaming.
        var requests: RequestFlow?
    }

    /// The request side of a client- or bidirectional-streaming call whose handler runs.
    struct RequestFlow {
        var deframer: MessageDeframer
        let encoding: CompressionAlgorithm?
        let maxRequestBytes: Int
        /// Untaken bytes beyond which DATA is no longer acknowledged.
        let bufferBytes: Int
        /// Whether the client has yet to half-close.
        var open = true
        /// The wire sizes of messages handed to the handler and not yet taken, oldest first.
        var untakenSizes: [Int] = []
        var untakenHead = 0
        /// Request bytes counted against the connection's budget: those of untaken messages and
        /// of a message still arriving.
        var heldBytes = 0
        /// DATA bytes not yet acknowledged at the stream level (WINDOW_UPDATE): withheld while
        /// the handler lags, so the client stops sending.
        var withheldBytes = 0
    }

    struct Answered {
        /// The client had not ended its request when we answered: once our END_STREAM is out,
        /// the stream is reset (NO_ERROR) so the client stops sending (RFC 9113 §8.1).
        var requestOpen: Bool
        /// Response bytes and trailers nghttp2 has yet to take; `nil` for an answer that went
        /// out whole in one HEADERS frame (Trailers-Only, an HTTP status).
        var response: ResponseQueue?
        /// Request bytes of a streaming-request call still counted against the connection's
        /// budget; released when the stream closes.
        var heldRequestBytes = 0
    }

    /// Where the response's DATA stands with nghttp2.
    enum DataProvider {
        /// No response HEADERS yet: the first message submits them with a data provider.
        case notStarted
        /// nghttp2 pulls bytes when it has room.
        case producing
        /// The provider ran dry and told nghttp2 to wait; new bytes must resume it.
        case deferred
    }

    /// The response bytes of a call, queued for nghttp2's data provider.
    struct ResponseQueue {
        var provider = DataProvider.notStarted
        var pending: [[UInt8]] = []
        var pendingOffset = 0
        /// The status, once the handler has finished; sent as trailers after the last byte.
        var end: ResponseEnd?
    }

    /// A call's status with its trailing metadata.
    struct ResponseEnd {
        var status: Status
        var trailing: Metadata

        /// Whether the trailers are just `grpc-status: 0`, which the server keeps pre-encoded.
        var isPlainOK: Bool { status.code == .ok && status.message.isEmpty && trailing.isEmpty }
    }

    private(set) var state = State.receivingHeaders(RequestHead())
    /// The method served at `:path`, found from its bytes.
    private(set) var target: ServerMethod?
    /// A `:path` no method is served at, kept for the error and the call log.
    private(set) var unknownPath: String?
    /// The client's custom metadata.
    private(set) var metadata = Metadata()

    /// The `:path` of the call, if it came.
    var path: String? { target?.path ?? unknownPath }

    /// Whether the request is still arriving: a connection whose every stream is in this state
    /// has clients that went silent mid-request.
    var isReceiving: Bool {
        switch state {
        case .receivingHeaders, .receivingMessage, .receivingWebRequest: true
        default: false
        }
    }

    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }
}

// MARK: - Actions

extension ServerStreamStateMachine {
    /// An immediate error answered as Trailers-Only.
    struct Rejection {
        var error: RPCError
        /// Headers beside the status, such as `grpc-accept-encoding`.
        var extraHeaders: [(String, String)] = []
        /// Request bytes the connection had counted for this stream and may now forget.
        var releasedBytes: Int
    }

    enum HeadersAction {
        /// Not the request's first header block (the client's trailers): nothing to decide.
        case none
        /// Answer with this HTTP status alone: not a gRPC request.
        case respondHTTP(status: Int)
        case reject(Rejection)
        /// The call is accepted; run the deadline timer if there is a deadline. Its request is one
        /// message of at most `maxRequestBytes`, read whole before the handler starts.
        case accept(deadline: ContinuousClock.Instant?, maxRequestBytes: Int)
        /// A streaming-request call is accepted and admitted: run the deadline timer if there is
        /// a deadline, and start the handler with an empty request stream.
        case startStreaming(CallStart)
        /// Not a gRPC request: its body is read whole for the web gateway.
        case acceptWeb
    }

    enum DataAction {
        /// Ignored: the call is not receiving (answered already, or gone).
        case none
        /// Count `bytes` more against the connection's budget.
        case buffered(bytes: Int)
        case reject(Rejection)
        /// Hand `messages` to the running handler; count `bytes` more against the connection's
        /// budget, and acknowledge `acknowledged` bytes at the stream level (the rest are
        /// withheld until the handler takes messages).
        case deliver(messages: [[UInt8]], bytes: Int, acknowledged: Int)
        /// A request message broke a rule while the handler runs: stop the handler (close its
        /// writer, end its request stream, cancel its task) with the error, then finish.
        case cancelHandler(RPCError, then: FinishAction)
        /// A web request cannot be read whole: answer it with this status and reason (then
        /// ``webAnswered(body:)``), forgetting the bytes it held.
        case refuseWeb(status: Int, reason: String, releasedBytes: Int)
    }

    /// What a call needs to start: the request and what the context is made of.
    struct CallStart {
        var method: ServerMethod
        var request: [UInt8]
        var deadline: ContinuousClock.Instant?
        var acceptEncoding: String?
        var requestCompression: CompressionAlgorithm
        var releasedBytes: Int
    }

    enum EndOfRequestAction {
        case none
        case reject(Rejection)
        case startHandler(CallStart)
        /// The client half-closed a streaming-request call: end the handler's request stream.
        case endRequests
        /// The request ended inside a message: stop the handler with the error, then finish.
        case cancelHandler(RPCError, then: FinishAction)
        /// A web request is whole: hand it to the web gateway, and forget the bytes it held.
        case answerWeb(WebRequest, releasedBytes: Int)
    }

    /// How a web answer leaves.
    enum WebAnswerAction: Equatable {
        /// The stream is gone: nothing to send.
        case none
        /// Response HEADERS ending the stream: the answer has no body.
        case submitHeaders
        /// Response HEADERS with a data provider that pulls the body.
        case submitHeadersWithBody
    }

    /// What the handler taking request messages leads to.
    struct Taken: Equatable {
        /// Request bytes the connection may forget.
        var releasedBytes: Int
        /// Withheld DATA bytes to acknowledge at the stream level now.
        var acknowledged: Int
    }

    /// How the response HEADERS are to be made.
    enum ResponseHeaders {
        /// The server's pre-encoded headers: no metadata, no compression.
        case plain
        case custom(initial: Metadata?, encoding: CompressionAlgorithm?)
    }

    enum MessageAction {
        /// Dropped: the call has ended.
        case none
        /// Submit the response HEADERS with a data provider.
        case submitHeaders(ResponseHeaders)
        /// Wake nghttp2's data provider.
        case resumeData
        /// Queued; nghttp2 will pull it.
        case queued
    }

    /// How a call's status leaves; every case but `.none` ends the call (observe it, stop its
    /// deadline timer).
    enum FinishAction {
        /// The call had already ended.
        case none
        /// One HEADERS frame with the status: no response HEADERS went out before.
        case trailersOnly(status: Status, metadata: Metadata)
        /// Response HEADERS with a data provider; the message and trailers follow from the queue.
        case submitHeadersThenTrailers(ResponseHeaders, status: Status)
        /// The trailers follow the queued bytes; `resumeData` when the provider waits.
        case trailers(status: Status, resumeData: Bool)

        var status: Status? {
            switch self {
            case .none: nil
            case .trailersOnly(let status, _), .submitHeadersThenTrailers(_, let status),
                .trailers(let status, _):
                status
            }
        }
    }

    enum DeadlineAction {
        case none
        case reject(Rejection)
        /// Stop the handler (close its writer with the error, cancel its task), then finish.
        case cancelHandler(RPCError, then: FinishAction)
    }

    /// What ending the stream from outside (client reset, connection gone) leaves to do.
    struct Teardown {
        /// The status to record for a call that had not ended; `nil` when it had.
        var unfinished: Status?
        /// Stop the handler with this error (close its writer, cancel its task).
        var cancelHandler: RPCError?
        var releasedBytes: Int
    }

    /// What nghttp2's data provider gets.
    struct Pull {
        var copied: Int
        /// The status, once the last byte is out: submit it as trailers and end the DATA.
        var end: ResponseEnd?
        /// Nothing to send yet: tell nghttp2 to wait.
        var deferred: Bool
        /// The last byte of a web answer is out: end the stream with this DATA, no trailers.
        var finished = false
    }
}

// MARK: - Request events

extension ServerStreamStateMachine {
    /// One request header field; header blocks after the first (trailers) are ignored.
    ///
    /// - Returns: False when the header list exceeds `maxHeaderListSize` (the stream is then
    ///   reset by nghttp2).
    mutating func receiveHeader(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, methods: MethodTable,
        maxHeaderListSize: Int
    ) -> Bool {
        guard case .receivingHeaders(var head) = state else { return true }
        head.headerBytes += name.count + value.count + 32
        if head.headerBytes > maxHeaderListSize {
            state = .receivingHeaders(head)
            return false
        }
        switch RequestHeaderName(name) {
        case .method:
            head.isPost = value.elementsEqual("POST".utf8)
            if head.isPost == false { head.otherMethod = String(decoding: value, as: UTF8.self) }
        case .authority: head.authority = String(decoding: value, as: UTF8.self)
        case .path:
            target = methods.method(forPath: value)
            unknownPath = target == nil ? String(decoding: value, as: UTF8.self) : nil
        case .contentType:
            head.hasGRPCContentType = Self.isGRPCContentType(value)
            if head.hasGRPCContentType == false { head.otherContentType = String(decoding: value, as: UTF8.self) }
        case .encoding: head.encodingName = String(decoding: value, as: UTF8.self)
        case .acceptEncoding: head.acceptEncoding = String(decoding: value, as: UTF8.self)
        case .timeout: head.timeoutText = String(decoding: value, as: UTF8.self)
        case .ignored: break
        case .other: metadata.addFromWire(name: String(decoding: name, as: UTF8.self), value: value)
        }
        state = .receivingHeaders(head)
        return true
    }

    /// The request HEADERS are complete: accept the call or answer it at once.
    ///
    /// - Parameters:
    ///   - refuseNewCalls: The server is shutting down and this connection sent its GOAWAY.
    ///   - enabledCompression: The encodings the server decodes beside identity.
    ///   - acceptEncodingHeader: The server's `grpc-accept-encoding`, for an unsupported encoding.
    ///   - now: For the deadline.
    ///   - requestBufferBytes: For a streaming-request call, the untaken request bytes beyond
    ///     which the stream's window is no longer granted.
    ///   - admit: Asked when a streaming-request call is about to start: `nil` lets it start, an
    ///     error answers it instead (the per-client cap).
    ///   - webBodyLimit: With the web protocols served, the largest body of a request that is not
    ///     gRPC (it is read for the web gateway); `nil` answers such a request 405 or 415 alone.
    mutating func requestHeadersEnded(
        refuseNewCalls: Bool, enabledCompression: [CompressionAlgorithm], acceptEncodingHeader: String,
        now: ContinuousClock.Instant, requestBufferBytes: Int = 256 << 10, admit: () -> RPCError? = { nil },
        webBodyLimit: Int? = nil
    ) -> HeadersAction {
        guard case .receivingHeaders(let head) = state else { return .none }
        if let webBodyLimit, head.isPost != true || head.hasGRPCContentType != true {
            state = .receivingWebRequest(
                WebRequest(
                    method: head.isPost == true ? "POST" : head.otherMethod ?? "", target: path ?? "/",
                    contentType: head.otherContentType, authority: head.authority, timeout: head.timeoutText,
                    maxBodyBytes: webBodyLimit))
            return .acceptWeb
        }
        guard head.isPost == true else {
            state = .answered(Answered(requestOpen: true))
            return .respondHTTP(status: 405)
        }
        guard head.hasGRPCContentType == true else {
            state = .answered(Answered(requestOpen: true))
            return .respondHTTP(status: 415)
        }
        if refuseNewCalls {
            return .reject(reject(RPCError(code: .unavailable, message: "the server is shutting down")))
        }
        var deadline: ContinuousClock.Instant?
        if let text = head.timeoutText {
            // The spec leaves a malformed grpc-timeout open; like grpc-go we answer INTERNAL,
            // since it is a transport-level malformation rather than a bad argument.
            guard let timeout = GRPCTimeout.parse(text) else {
                return .reject(reject(RPCError(code: .internalError, message: "malformed grpc-timeout: \(text)")))
            }
            deadline = now + timeout
        }
        guard let method = target else {
            return .reject(
                reject(RPCError(code: .unimplemented, message: "method not found: \(unknownPath ?? "")")))
        }
        var requestEncoding: CompressionAlgorithm?
        if let name = head.encodingName {
            guard let algorithm = CompressionAlgorithm(name: name),
                algorithm == .identity || enabledCompression.contains(algorithm)
            else {
                var rejection = reject(
                    RPCError(code: .unimplemented, message: "compression algorithm \"\(name)\" is not supported"))
                rejection.extraHeaders = [("grpc-accept-encoding", acceptEncodingHeader)]
                return .reject(rejection)
            }
            requestEncoding = algorithm
        }
        if method.kind.streamsRequests {
            if let refusal = admit() { return .reject(reject(refusal)) }
            let flow = RequestFlow(
                deframer: MessageDeframer(maxMessageBytes: method.maxRequestBytes), encoding: requestEncoding,
                maxRequestBytes: method.maxRequestBytes, bufferBytes: requestBufferBytes)
            state = .running(Running(requests: flow))
            return .startStreaming(
                CallStart(
                    method: method, request: [], deadline: deadline, acceptEncoding: head.acceptEncoding,
                    requestCompression: requestEncoding ?? .identity, releasedBytes: 0))
        }
        state = .receivingMessage(
            ReceivingMessage(
                method: method, deframer: MessageDeframer(maxMessageBytes: method.maxRequestBytes),
                requestEncoding: requestEncoding, acceptEncoding: head.acceptEncoding, deadline: deadline))
        return .accept(deadline: deadline, maxRequestBytes: method.maxRequestBytes)
    }

    /// A chunk of the request body.
    ///
    /// - Parameter budget: How many more request bytes the connection may hold.
    mutating func receiveData(_ data: UnsafeBufferPointer<UInt8>, budget: Int) -> DataAction {
        if case .running(let running) = state, running.requests != nil {
            return receiveStreamedData(data, budget: budget)
        }
        if case .receivingWebRequest = state { return receiveWebData(data, budget: budget) }
        guard case .receivingMessage(var receiving) = state else { return .none }
        if data.count > budget {
            return .reject(
                reject(
                    RPCError(code: .resourceExhausted, message: "too many request bytes in flight on this connection")))
        }
        state = .modifying
        let counted = receiving.bufferedBytes
        receiving.bufferedBytes += data.count
        var failure: RPCError?
        // The messages land in locals: the closure may not capture `receiving` while its
        // deframer is being fed.
        var requestCount = receiving.requestCount
        var request: [UInt8]?
        var compressedFlag = receiving.requestWasCompressed
        do throws(DeframingError) {
            let method = receiving.method
            let encoding = receiving.requestEncoding
            try receiving.deframer.feed(data) { (compressed, bytes) throws(DeframingError) in
                guard failure == nil else { return }
                requestCount += 1
                if requestCount > 1 {
                    failure = RPCError(code: .unimplemented, message: "expected one request message, received more")
                    return
                }
                compressedFlag = compressed
                do throws(RPCError) {
                    request = try MessageDecoder.decode(
                        compressed: compressed, bytes: bytes, encoding: encoding, limit: method.maxRequestBytes)
                } catch {
                    failure = error
                }
            }
        } catch {
            failure = RPCError(code: error.statusCode, message: error.message)
        }
        receiving.requestCount = requestCount
        receiving.requestWasCompressed = compressedFlag
        if let request { receiving.request = request }
        if let failure {
            // The connection never counted this chunk.
            state = .answered(Answered(requestOpen: true))
            return .reject(Rejection(error: failure, releasedBytes: counted))
        }
        state = .receivingMessage(receiving)
        return .buffered(bytes: data.count)
    }

    /// The client ended its request (END_STREAM).
    ///
    /// - Parameter admit: Asked once the request is whole: `nil` lets the call start, an error
    ///   answers it instead (the per-client cap).
    mutating func requestEnded(admit: () -> RPCError?) -> EndOfRequestAction {
        switch state {
        case .receivingMessage(var receiving):
            do throws(DeframingError) {
                try receiving.deframer.finish()
            } catch {
                return .reject(
                    reject(
                        RPCError(code: .internalError, message: "request ended inside a message"), requestOpen: false))
            }
            guard receiving.requestCount == 1, let request = receiving.request else {
                return .reject(
                    reject(
                        RPCError(code: .unimplemented, message: "expected one request message, received none"),
                        requestOpen: false))
            }
            if let refusal = admit() {
                return .reject(reject(refusal, requestOpen: false))
            }
            receiving.request = nil
            state = .running(Running())
            return .startHandler(
                CallStart(
                    method: receiving.method, request: request, deadline: receiving.deadline,
                    acceptEncoding: receiving.acceptEncoding,
                    requestCompression: receiving.requestWasCompressed
                        ? receiving.requestEncoding ?? .identity : .identity,
                    releasedBytes: receiving.bufferedBytes))
        case .running(var running):
            guard var flow = running.requests, flow.open else { return .none }
            state = .modifying
            do throws(DeframingError) {
                try flow.deframer.finish()
            } catch {
                running.requests = flow
                let error = RPCError(code: .internalError, message: "request ended inside a message")
                return .cancelHandler(error, then: failRunning(running, error))
            }
            flow.open = false
            running.requests = flow
            state = .running(running)
            return .endRequests
        case .answered(var answered):
            answered.requestOpen = false
            state = .answered(answered)
            return .none
        case .receivingWebRequest(let request):
            state = .answeringWebRequest(requestOpen: false)
            return .answerWeb(request, releasedBytes: request.body.count)
        case .answeringWebRequest:
            state = .answeringWebRequest(requestOpen: false)
            return .none
        case .sendingWebResponse(var response):
            response.requestOpen = false
            state = .sendingWebResponse(response)
            return .none
        case .receivingHeaders, .closed, .modifying:
            return .none
        }
    }

    /// A chunk of a web request's body.
    private mutating func receiveWebData(_ data: UnsafeBufferPointer<UInt8>, budget: Int) -> DataAction {
        guard case .receivingWebRequest(var request) = state else { return .none }
        let held = request.body.count
        if held + data.count > request.maxBodyBytes {
            state = .answeringWebRequest(requestOpen: true)
            return .refuseWeb(
                status: 413, reason: "the request body is larger than \(request.maxBodyBytes) bytes\n",
                releasedBytes: held)
        }
        if data.count > budget {
            state = .answeringWebRequest(requestOpen: true)
            return .refuseWeb(
                status: 503, reason: "too many request bytes in flight on this connection\n", releasedBytes: held)
        }
        state = .modifying
        request.body.append(contentsOf: data)
        state = .receivingWebRequest(request)
        return .buffered(bytes: data.count)
    }

    /// The web gateway answered with `body` (empty: the answer is its head alone).
    mutating func webAnswered(body: [UInt8]) -> WebAnswerAction {
        guard case .answeringWebRequest(let requestOpen) = state else { return .none }
        if body.isEmpty {
            state = .answered(Answered(requestOpen: requestOpen))
            return .submitHeaders
        }
        state = .sendingWebResponse(WebResponseBody(bytes: body, requestOpen: requestOpen))
        return .submitHeadersWithBody
    }

    /// A chunk of a streaming-request call's body, while its handler runs.
    private mutating func receiveStreamedData(_ data: UnsafeBufferPointer<UInt8>, budget: Int) -> DataAction {
        guard case .running(var running) = state, var flow = running.requests, flow.open else { return .none }
        state = .modifying
        if data.count > budget {
            let error = RPCError(
                code: .resourceExhausted, message: "too many request bytes in flight on this connection")
            return .cancelHandler(error, then: failRunning(running, error))
        }
        var messages: [[UInt8]] = []
        var sizes: [Int] = []
        var failure: RPCError?
        do throws(DeframingError) {
            let encoding = flow.encoding
            let limit = flow.maxRequestBytes
            try flow.deframer.feed(data) { (compressed, bytes) throws(DeframingError) in
                guard failure == nil else { return }
                do throws(RPCError) {
                    messages.append(
                        try MessageDecoder.decode(
                            compressed: compressed, bytes: bytes, encoding: encoding, limit: limit))
                    sizes.append(bytes.count + Envelope.headerSize)
                } catch {
                    failure = error
                }
            }
        } catch {
            failure = RPCError(code: error.statusCode, message: error.message)
        }
        if let failure {
            // The connection never counted this chunk.
            running.requests = flow
            return .cancelHandler(failure, then: failRunning(running, failure))
        }
        flow.heldBytes += data.count
        flow.untakenSizes.append(contentsOf: sizes)
        let untaken = flow.heldBytes
        let acknowledged: Int
        if untaken > flow.bufferBytes {
            flow.withheldBytes += data.count
            acknowledged = 0
        } else {
            acknowledged = data.count
        }
        running.requests = flow
        state = .running(running)
        return .deliver(messages: messages, bytes: data.count, acknowledged: acknowledged)
    }

    /// The handler of a streaming-request call took `count` request messages.
    mutating func requestsTaken(_ count: Int) -> Taken {
        guard case .running(var running) = state, var flow = running.requests else {
            return Taken(releasedBytes: 0, acknowledged: 0)
        }
        state = .modifying
        var released = 0
        for _ in 0..<count where flow.untakenHead < flow.untakenSizes.count {
            released += flow.untakenSizes[flow.untakenHead]
            flow.untakenHead += 1
        }
        if flow.untakenHead == flow.untakenSizes.count {
            flow.untakenSizes.removeAll(keepingCapacity: true)
            flow.untakenHead = 0
        }
        flow.heldBytes -= released
        var acknowledged = 0
        if flow.withheldBytes > 0 && flow.heldBytes <= flow.bufferBytes {
            acknowledged = flow.withheldBytes
            flow.withheldBytes = 0
        }
        running.requests = flow
        state = .running(running)
        return Taken(releasedBytes: released, acknowledged: acknowledged)
    }

    /// Ends a running call with `error` (when given) as its status, dropping unsent responses.
    private mutating func failRunning(_ running: Running, _ error: RPCError) -> FinishAction {
        var running = running
        running.response.pending = []
        running.response.pendingOffset = 0
        return finish(running, end: ResponseEnd(status: error.status, trailing: error.metadata))
    }

    /// Answers the call with `error` from a receiving state.
    private mutating func reject(_ error: RPCError, requestOpen: Bool = true) -> Rejection {
        var released = 0
        if case .receivingMessage(let receiving) = state { released = receiving.bufferedBytes }
        state = .answered(Answered(requestOpen: requestOpen))
        return Rejection(error: error, releasedBytes: released)
    }

    /// Whether a `content-type` is gRPC's: "application/grpc", alone or followed by "+" (a
    /// message format) or ";" (parameters).
    static func isGRPCContentType(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix = "application/grpc".utf8
        guard value.count >= prefix.count, value.prefix(prefix.count).elementsEqual(prefix) else { return false }
        guard value.count > prefix.count else { return true }
        let next = value[prefix.count]
        return next == UInt8(ascii: "+") || next == UInt8(ascii: ";")
    }
}

// MARK: - Response events

extension ServerStreamStateMachine {
    /// A framed response message from the handler.
    mutating func handlerWrote(
        _ bytes: [UInt8], initialMetadata: Metadata?, encoding: CompressionAlgorithm?
    ) -> MessageAction {
        guard case .running(var running) = state else { return .none }
        state = .modifying
        running.response.pending.append(bytes)
        let action: MessageAction
        switch running.response.provider {
        case .notStarted:
            running.response.provider = .producing
            action = .submitHeaders(Self.headers(initial: initialMetadata, encoding: encoding))
        case .deferred:
            running.response.provider = .producing
            action = .resumeData
        case .producing:
            action = .queued
        }
        state = .running(running)
        return action
    }

    /// The handler returned (or a synchronous handler answered): its last message, if a unary
    /// one is sent with the status, then the status.
    mutating func handlerFinished(
        status: Status, trailing: Metadata, unaryResponse: [UInt8]?, initialMetadata: Metadata?,
        encoding: CompressionAlgorithm?
    ) -> FinishAction {
        guard case .running(var running) = state else { return .none }
        state = .modifying
        let end = ResponseEnd(status: status, trailing: trailing)
        if let unaryResponse, running.response.provider == .notStarted {
            running.response.pending.append(unaryResponse)
            running.response.provider = .producing
            running.response.end = end
            state = .answered(
                Answered(
                    requestOpen: running.requests?.open ?? false, response: running.response,
                    heldRequestBytes: running.requests?.heldBytes ?? 0))
            return .submitHeadersThenTrailers(
                Self.headers(initial: initialMetadata, encoding: encoding), status: status)
        }
        if let unaryResponse { running.response.pending.append(unaryResponse) }
        return finish(running, end: end, initialMetadata: initialMetadata)
    }

    /// The deadline passed.
    mutating func deadlineExpired() -> DeadlineAction {
        let error = RPCError(code: .deadlineExceeded, message: "deadline exceeded")
        switch state {
        case .receivingMessage:
            return .reject(reject(error))
        case .running(var running):
            state = .modifying
            // The messages not yet sent are dropped: the status goes out now.
            running.response.pending = []
            running.response.pendingOffset = 0
            return .cancelHandler(error, then: finish(running, end: ResponseEnd(status: error.status, trailing: [:])))
        case .receivingHeaders, .answered, .closed, .modifying, .receivingWebRequest, .answeringWebRequest,
            .sendingWebResponse:
            return .none
        }
    }

    private mutating func finish(_ running: Running, end: ResponseEnd, initialMetadata: Metadata? = nil)
        -> FinishAction
    {
        var response = running.response
        // A streaming-request handler may end before the client half-closes: the client is then
        // reset once our END_STREAM is out, and the bytes it had sent are released with the stream.
        let requestOpen = running.requests?.open ?? false
        let held = running.requests?.heldBytes ?? 0
        switch response.provider {
        case .notStarted:
            var metadata = initialMetadata ?? Metadata()
            metadata.append(contentsOf: end.trailing)
            state = .answered(Answered(requestOpen: requestOpen, heldRequestBytes: held))
            return .trailersOnly(status: end.status, metadata: metadata)
        case .producing, .deferred:
            let resume = response.provider == .deferred
            response.provider = .producing
            response.end = end
            state = .answered(Answered(requestOpen: requestOpen, response: response, heldRequestBytes: held))
            return .trailers(status: end.status, resumeData: resume)
        }
    }

    /// nghttp2's data provider asks for up to `length` bytes.
    mutating func pullResponse(into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> Pull {
        switch state {
        case .running(var running):
            state = .modifying
            let copied = Self.copy(&running.response, into: buffer, length: length)
            if copied == 0 { running.response.provider = .deferred }
            state = .running(running)
            return Pull(copied: copied, end: nil, deferred: copied == 0)
        case .answered(var answered):
            guard var response = answered.response else { return Pull(copied: 0, end: nil, deferred: true) }
            state = .modifying
            let copied = Self.copy(&response, into: buffer, length: length)
            var end: ResponseEnd?
            if response.pending.isEmpty {
                end = response.end
                response.end = nil
            }
            let deferred = copied == 0 && end == nil
            if deferred { response.provider = .deferred }
            answered.response = response
            state = .answered(answered)
            return Pull(copied: copied, end: end, deferred: deferred)
        case .sendingWebResponse(var response):
            state = .modifying
            let copied = min(length, response.bytes.count - response.offset)
            response.bytes.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + response.offset, count: copied)
            }
            response.offset += copied
            guard response.offset == response.bytes.count else {
                state = .sendingWebResponse(response)
                return Pull(copied: copied, end: nil, deferred: false)
            }
            state = .answered(Answered(requestOpen: response.requestOpen))
            return Pull(copied: copied, end: nil, deferred: false, finished: true)
        case .receivingHeaders, .receivingMessage, .closed, .modifying, .receivingWebRequest, .answeringWebRequest:
            return Pull(copied: 0, end: nil, deferred: true)
        }
    }

    /// Our END_STREAM went out.
    ///
    /// - Returns: Whether to reset the stream (NO_ERROR) because the client is still sending.
    mutating func endStreamSent() -> Bool {
        guard case .answered(var answered) = state, answered.requestOpen else { return false }
        answered.requestOpen = false
        state = .answered(answered)
        return true
    }

    /// The stream is gone: nghttp2 closed it, or the connection closed.
    ///
    /// - Parameter reason: What a handler still running, and the call log, are told.
    mutating func streamClosed(reason: RPCError) -> Teardown {
        let teardown: Teardown
        switch state {
        case .receivingHeaders:
            teardown = Teardown(unfinished: reason.status, cancelHandler: nil, releasedBytes: 0)
        case .receivingMessage(let receiving):
            teardown = Teardown(unfinished: reason.status, cancelHandler: nil, releasedBytes: receiving.bufferedBytes)
        case .running(let running):
            teardown = Teardown(
                unfinished: reason.status, cancelHandler: reason, releasedBytes: running.requests?.heldBytes ?? 0)
        case .answered(let answered):
            teardown = Teardown(unfinished: nil, cancelHandler: nil, releasedBytes: answered.heldRequestBytes)
        case .receivingWebRequest(let request):
            // Not a call: a web call is observed by the gateway that runs it.
            teardown = Teardown(unfinished: nil, cancelHandler: nil, releasedBytes: request.body.count)
        case .answeringWebRequest, .sendingWebResponse, .closed, .modifying:
            teardown = Teardown(unfinished: nil, cancelHandler: nil, releasedBytes: 0)
        }
        state = .closed
        return teardown
    }

    private static func headers(initial: Metadata?, encoding: CompressionAlgorithm?) -> ResponseHeaders {
        if encoding == nil && initial?.isEmpty ?? true { return .plain }
        return .custom(initial: initial, encoding: encoding)
    }

    /// Copies queued response bytes into `buffer`.
    private static func copy(
        _ response: inout ResponseQueue, into buffer: UnsafeMutablePointer<UInt8>, length: Int
    ) -> Int {
        var copied = 0
        while copied < length, !response.pending.isEmpty {
            let offset = response.pendingOffset
            let take = response.pending[0].withUnsafeBufferPointer { source in
                let take = min(source.count - offset, length - copied)
                (buffer + copied).update(from: source.baseAddress! + offset, count: take)
                return take
            }
            copied += take
            response.pendingOffset += take
            if response.pendingOffset == response.pending[0].count {
                response.pending.removeFirst()
                response.pendingOffset = 0
            }
        }
        return copied
    }
}
