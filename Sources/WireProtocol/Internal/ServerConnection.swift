internal import Base64Coding
internal import CNghttp2
internal import Glibc
internal import HTTP1

/// The server side of one HTTP/2 connection: feeds nghttp2's callbacks, the timers and the
/// handlers' output to the connection's and each stream's state machine, and performs the
/// actions they return (submit frames, start and cancel handlers, run timers).
///
/// The rules live in `ServerConnectionStateMachine` and `ServerStreamStateMachine`; this class
/// only does I/O. Loop thread only (checked in debug builds): writers hand work over with
/// `loop.execute`.
final class ServerConnection: H2Connection, @unchecked Sendable {
    private let core: ServerCore
    private let peer: String
    /// What this connection's calls count against in the per-peer cap.
    private let peerKey: String
    private var streams: [Int32: ServerStream] = [:]
    private var machine: ServerConnectionStateMachine
    private var idleTimer: LoopTimer?
    private var keepaliveTimer: LoopTimer?
    /// Answers the requests that are not gRPC (Connect, gRPC-Web, `/healthz`…), made on the first.
    private lazy var gateway = WebGateway(core: core)

    init(fd: Int32, loop: EventLoop, core: ServerCore, peer: String) {
        self.core = core
        self.peer = peer
        peerKey = ServerCore.peerKey(peer)
        machine = ServerConnectionStateMachine(limits: .init(core.configuration), now: .now)
        super.init(fd: fd, loop: loop)
        let configuration = core.configuration
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_settings(option, 32)
        // We acknowledge DATA ourselves (`onData`): at once, except a streaming-request call's
        // whose handler lags, so a client cannot pile up messages a slow handler has not taken.
        nghttp2_option_set_no_auto_window_update(option, 1)
        // nghttp2's own limiter (GOAWAY INTERNAL_ERROR) is a backstop behind ours.
        nghttp2_option_set_stream_reset_rate_limit(
            option, UInt64(configuration.resetStreamBurst * 2), UInt64(configuration.resetStreamsPerSecond * 2))
        nghttp2_session_server_new2(&session, sharedCallbacks, userData, option)
        nghttp2_option_del(option)
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(configuration.maxConcurrentStreams)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(configuration.maxHeaderListSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // The connection's window is reopened as its bytes arrive (``onData``): what bounds what
        // it holds is its request budget, so its window is that budget, not 65,535 bytes that
        // a single large request would have to wait on.
        let connectionWindow = Int32(clamping: configuration.maxBufferedRequestBytesPerConnection)
        if connectionWindow > Self.initialWindow {
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, connectionWindow)
        }
    }

    /// The first bytes read while it is not yet known whether the client speaks HTTP/2 (its
    /// preface) or HTTP/1.1; `nil` once known. Until then nothing is written: an HTTP/1.1
    /// client must not receive the server's SETTINGS.
    private var undecided: [UInt8]? = []

    /// The client preface every HTTP/2 connection starts with (RFC 9113 §3.4).
    private static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    override func intercept(_ bytes: UnsafeBufferPointer<UInt8>) -> Interception {
        guard var seen = undecided else { return .pass }
        seen += bytes
        let compared = min(seen.count, Self.clientPreface.count)
        guard seen[..<compared].elementsEqual(Self.clientPreface[..<compared]) else {
            undecided = nil
            handOverToHTTP1(seen)
            return .handedOver
        }
        guard seen.count >= Self.clientPreface.count else {
            undecided = seen
            return .hold
        }
        undecided = nil
        isWritable = true
        loop.markDirty(self)
        return .feed(seen)
    }

    /// Gives the socket to an `HTTP1ServerConnection` (it counts as the same connection).
    private func handOverToHTTP1(_ bytes: [UInt8]) {
        guard core.configuration.web.isEnabled else {
            close()
            return
        }
        idleTimer?.cancel()
        keepaliveTimer?.cancel()
        detach()
        HTTP1ServerConnection(fd: fd, loop: loop, core: core, peer: peer).start(with: bytes)
    }

    func start() {
        isWritable = false
        register()
        loop.markDirty(self)
        armIdleTimer()
        armKeepalive()
    }

    // MARK: Timers

    /// Runs the keepalive timer (the machine pings a silent peer and closes the connection if
    /// nothing comes back in time).
    private func armKeepalive(at instant: ContinuousClock.Instant? = nil) {
        guard !isClosed, let next = instant ?? machine.nextKeepaliveCheck(now: .now, lastReadAt: lastReadAt)
        else { return }
        keepaliveTimer?.cancel()
        // The timers of a connection hold it strongly and are cancelled (their closures
        // dropped) when it closes. A weak reference would give the connection a side table, and
        // from then on every retain and release of it, several per request header, would take
        // the runtime's slow path: about a tenth of a small call's CPU.
        keepaliveTimer = loop.schedule(at: next) { [self] in
            guard !self.isClosed, let session = self.session else { return }
            switch self.machine.keepaliveTimerFired(now: .now, lastReadAt: self.lastReadAt) {
            case .none:
                break
            case .rearm(let instant):
                self.armKeepalive(at: instant)
            case .ping(let checkAt):
                nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
                self.loop.markDirty(self)
                self.armKeepalive(at: checkAt)
            case .close:
                self.close()
            }
        }
    }

    private func armIdleTimer(at instant: ContinuousClock.Instant? = nil) {
        guard !isClosed,
            let next = instant ?? machine.nextIdleCheck(now: .now, hasStreams: !streams.isEmpty)
        else { return }
        idleTimer?.cancel()
        idleTimer = loop.schedule(at: next) { [self] in
            guard !self.isClosed else { return }
            switch self.machine.idleTimerFired(now: .now, streams: self.streamActivity) {
            case .rearm(let instant): self.armIdleTimer(at: instant)
            case .goaway: self.startGoaway()
            case .closeStalled: self.closeStalled()
            }
        }
    }

    private var streamActivity: ServerConnectionStateMachine.StreamActivity {
        if streams.isEmpty { return .none }
        return streams.values.allSatisfy { $0.machine.isReceiving } ? .allReceiving : .busy
    }

    /// Ends a connection whose every stream is a request that stopped arriving (HEADERS without
    /// END_STREAM, then silence): such streams would otherwise hold it open for ever.
    private func closeStalled() {
        guard let session else { return }
        startGoaway()
        for id in streams.keys {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        }
        loop.markDirty(self)
    }

    /// Sends GOAWAY with the last stream processed; the connection closes once its streams end.
    func startGoaway(errorCode: UInt32 = NGHTTP2_NO_ERROR.rawValue) {
        loop.assertInLoop()
        guard !isClosed, let session, machine.beginDraining() else { return }
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), errorCode,
            nil, 0)
        loop.markDirty(self)
    }

    override func didClose() {
        idleTimer?.cancel()
        keepaliveTimer?.cancel()
        let reason = RPCError(code: .cancelled, message: "connection closed")
        for stream in streams.values { tearDown(stream, reason: reason) }
        streams = [:]
        core.connectionClosed()
    }

    /// Ends a stream from outside (client reset, connection gone) and lets go of its resources.
    private func tearDown(_ stream: ServerStream, reason: RPCError) {
        let teardown = stream.machine.streamClosed(reason: reason)
        machine.released(teardown.releasedBytes)
        if let status = teardown.unfinished { observe(stream, status) }
        if let error = teardown.cancelHandler {
            stream.writer?.close(error)
            stream.requests?.finish(throwing: error)
            stream.task?.cancel()
        }
        stream.release()
    }

    // MARK: Callbacks

    override func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == H2.headers, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let id = frame.pointee.hd.stream_id
        let now = ContinuousClock.now
        streams[id] = ServerStream(id: id, startedAt: now)
        machine.streamActivity(at: now)
        return 0
    }

    override func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        guard let stream = streams[frame.pointee.hd.stream_id] else { return 0 }
        let fits = stream.machine.receiveHeader(
            name: name, value: value, methods: core.methods, maxHeaderListSize: core.configuration.maxHeaderListSize)
        return fits ? 0 : H2.temporalFailure
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case H2.headers:
            guard let stream = streams[header.stream_id] else { return 0 }
            requestHeadersEnded(stream)
            if header.flags & H2.endStream != 0 { requestEnded(stream) }
        case H2.data:
            if header.flags & H2.endStream != 0, let stream = streams[header.stream_id] { requestEnded(stream) }
        case H2.ping:
            if header.flags & H2.ack == 0 {
                if machine.pingReceived(at: .now) == .enhanceYourCalm { calmDown() }
            } else if let next = machine.pingAcknowledged(now: .now, lastReadAt: lastReadAt) {
                // Our keepalive PING came back: the next interval starts now.
                armKeepalive(at: next)
            }
        case H2.rstStream:
            if machine.resetReceived(at: .now) == .enhanceYourCalm { calmDown() }
        default:
            break
        }
        return 0
    }

    override func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.type == H2.headers || header.type == H2.data, header.flags & H2.endStream != 0,
            let stream = streams[header.stream_id], stream.machine.endStreamSent()
        else { return 0 }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_NO_ERROR.rawValue)
        return 0
    }

    override func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streams[streamID] else {
            nghttp2_session_consume(session, streamID, data.count)
            return 0
        }
        switch stream.machine.receiveData(data, budget: machine.requestByteBudget) {
        case .none:
            nghttp2_session_consume(session, streamID, data.count)
        case .buffered(let count):
            nghttp2_session_consume(session, streamID, data.count)
            openWindowOfLargeRequest(stream, received: data.count)
            machine.buffered(count)
            machine.streamActivity(at: .now)
        case .reject(let rejection):
            nghttp2_session_consume(session, streamID, data.count)
            reject(stream, rejection)
        case .deliver(let messages, let count, let acknowledged):
            // The connection's window reopens at once, so one lagging handler never stalls the
            // connection's other streams; the stream's only as its handler takes messages.
            nghttp2_session_consume_connection(session, data.count)
            if acknowledged > 0 { nghttp2_session_consume_stream(session, streamID, acknowledged) }
            machine.buffered(count)
            machine.streamActivity(at: .now)
            for message in messages { stream.requests?.yield(message) }
        case .cancelHandler(let error, let finish):
            nghttp2_session_consume(session, streamID, data.count)
            cancelHandler(stream, error, then: finish)
        case .refuseWeb(let status, let reason, let released):
            nghttp2_session_consume(session, streamID, data.count)
            machine.released(released)
            respondWeb(stream, .text(status, reason))
        }
        return 0
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        tearDown(stream, reason: RPCError(code: .cancelled, message: "the client cancelled the call"))
        return 0
    }

    override func readData(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(H2.temporalFailure) }
        let pull = stream.machine.pullResponse(into: buffer, length: length)
        if pull.copied > 0 { stream.writer?.drained(pull.copied) }
        if pull.finished {
            flags.pointee |= H2.eof
            return pull.copied
        }
        if let end = pull.end {
            let trailers = end.isPlainOK ? HeaderBlock(core.okTrailers) : statusHeaders(end.status, end.trailing)
            trailers.withNV { nv, count in _ = nghttp2_submit_trailer(session, streamID, nv, count) }
            flags.pointee |= H2.eof | H2.noEndStream
            return pull.copied
        }
        return pull.deferred ? H2.deferred : pull.copied
    }

    /// Ends a misbehaving connection: GOAWAY ENHANCE_YOUR_CALM, then close once it is written.
    private func calmDown() {
        guard let session, !isClosed else { return }
        nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        loop.markDirty(self)
    }

    // MARK: Requests

    private func requestHeadersEnded(_ stream: ServerStream) {
        let web = core.configuration.web
        let action = stream.machine.requestHeadersEnded(
            refuseNewCalls: machine.refusesNewCalls(serverShuttingDown: core.isShuttingDown),
            enabledCompression: core.configuration.enabledCompression,
            acceptEncodingHeader: core.acceptEncodingHeader, now: .now,
            requestBufferBytes: core.configuration.streamWriteHighWater, admit: { admission() },
            webBodyLimit: web.isEnabled ? web.maxRequestBodyBytes : nil)
        switch action {
        case .none, .acceptWeb:
            break
        case .respondHTTP(let status):
            var headers = HeaderBlock()
            headers.add(":status", String(status))
            submitResponse(stream, headers, withData: false)
        case .reject(let rejection):
            reject(stream, rejection)
        case .accept(let deadline, let maxRequestBytes):
            armDeadline(stream, deadline)
            let window = Int32(clamping: maxRequestBytes + 5)
            if window > Self.initialWindow { stream.windowToOpen = window }
        case .startStreaming(let start):
            armDeadline(stream, start.deadline)
            startHandler(stream, start)
        }
    }

    /// Opens the flow-control window of a stream whose request is one message, once it has
    /// brought ``largeRequestBytes``, to the largest message its method takes (and gRPC's 5-byte
    /// prefix). Such a request is buffered whole before its handler starts, within the
    /// connection's budget, whatever the window; at HTTP/2's initial 65,535 bytes a larger one
    /// (an upsert of 100 listings: 96 KB; a pixel buffer) came in steps, each waiting for a
    /// WINDOW_UPDATE from this loop. Opened at every request's headers, small calls sent one
    /// each too, and Queries multiplexed 32 at a time fell from 2.46 times gRPC C++'s rate to
    /// 1.87–2.03 (`bench/rpc/run`); opened at 16 KB, the client still has most of the first
    /// window to send on meanwhile. A streaming request's window stays as it is: it paces the
    /// client to its handler.
    private func openWindowOfLargeRequest(_ stream: ServerStream, received: Int) {
        guard let window = stream.windowToOpen else { return }
        stream.receivedBytes += received
        guard stream.receivedBytes >= Self.largeRequestBytes else { return }
        stream.windowToOpen = nil
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, window)
    }

    /// Request bytes past which a one-message request's window is opened.
    static let largeRequestBytes = 16 << 10

    /// HTTP/2's initial flow-control window, of a stream and of a connection.
    static let initialWindow: Int32 = 65_535

    private func armDeadline(_ stream: ServerStream, _ deadline: ContinuousClock.Instant?) {
        // Strong, like the connection's timers: the stream cancels it when it ends.
        if let deadline { stream.timer = loop.schedule(at: deadline) { [self, stream] in deadlineExpired(stream) } }
    }

    /// The per-client cap: `nil` admits a call, an error refuses it.
    private func admission() -> RPCError? {
        if core.admitCall(peer: peerKey) { return nil }
        let cap = core.configuration.maxConcurrentCallsPerPeer ?? 0
        return RPCError(
            code: .resourceExhausted,
            message: "this client already has \(cap) calls running, the most one client may; "
                + "retry when some have finished")
    }

    private func requestEnded(_ stream: ServerStream) {
        switch stream.machine.requestEnded(admit: { admission() }) {
        case .none: break
        case .reject(let rejection): reject(stream, rejection)
        case .startHandler(let start): startHandler(stream, start)
        case .endRequests: stream.requests?.finish()
        case .cancelHandler(let error, let finish): cancelHandler(stream, error, then: finish)
        case .answerWeb(let request, let released):
            machine.released(released)
            answerWeb(stream, request)
        }
    }

    // MARK: Web requests

    /// Hands a whole request that is not gRPC to the web gateway, as HTTP/1.1 would (the same
    /// Connect, gRPC-Web, CORS, `/healthz`, `/metrics` and files); its answer goes out on `stream`.
    private func answerWeb(_ stream: ServerStream, _ request: ServerStreamStateMachine.WebRequest) {
        var fields: [HTTP1RequestHead.Field] = []
        if let authority = request.authority { fields.append(.init(name: "host", value: authority)) }
        if let contentType = request.contentType { fields.append(.init(name: "content-type", value: contentType)) }
        if let timeout = request.timeout { fields.append(.init(name: "grpc-timeout", value: timeout)) }
        for entry in stream.machine.metadata {
            switch entry.value {
            case .string(let value): fields.append(.init(name: entry.key, value: value))
            case .binary(let bytes): fields.append(.init(name: entry.key, value: Base64.encode(bytes)))
            }
        }
        let head = HTTP1RequestHead(
            method: request.method, target: request.target, minorVersion: 1, fields: fields,
            body: request.body.isEmpty ? .none : .length(request.body.count), keepAlive: true, expectsContinue: false)
        let boundStream = LoopBound(stream, loop: loop)
        gateway.answer(head, body: request.body, peer: peer, peerKey: peerKey, loop: loop) { [self] response in
            respondWeb(boundStream.value, response)
        }
    }

    /// Sends a web answer: its status and fields as HEADERS, its body as DATA, no trailers.
    private func respondWeb(_ stream: ServerStream, _ response: WebResponse) {
        guard !isClosed, session != nil else { return }
        let action = stream.machine.webAnswered(body: response.body)
        guard action != .none else { return }
        var headers = HeaderBlock()
        headers.add(":status", String(response.status))
        for field in response.fields { headers.add(field.name, field.value) }
        if response.status != 204 && response.status != 304 {
            headers.add("content-length", String(response.body.count))
        }
        submitResponse(stream, headers, withData: action == .submitHeadersWithBody)
    }

    /// Stops a running handler with `error` (its writer, its request stream, its task), then
    /// sends the status as decided.
    private func cancelHandler(
        _ stream: ServerStream, _ error: RPCError, then finish: ServerStreamStateMachine.FinishAction
    ) {
        stream.writer?.close(error)
        stream.requests?.finish(throwing: error)
        stream.task?.cancel()
        perform(finish, on: stream)
    }

    /// The handler of a streaming-request call took request messages: release their bytes and
    /// reopen the stream's window if it was withheld.
    private func requestsTaken(_ stream: ServerStream, count: Int) {
        let taken = stream.machine.requestsTaken(count)
        machine.released(taken.releasedBytes)
        if taken.acknowledged > 0, let session {
            nghttp2_session_consume_stream(session, stream.id, taken.acknowledged)
            loop.markDirty(self)
        }
    }

    /// Requests up to this size start their handler on the loop (when handlers start inline).
    static let inlineRequestLimit = 64 << 10

    private func startHandler(_ stream: ServerStream, _ start: ServerStreamStateMachine.CallStart) {
        machine.released(start.releasedBytes)
        let method = start.method
        let request = start.request
        let accepted = Self.parseAcceptEncoding(start.acceptEncoding)
        let context = ServerContext(
            path: method.path, requestMetadata: stream.machine.metadata, deadline: start.deadline, peer: peer,
            acceptedCompression: accepted, requestCompression: start.requestCompression)
        // A large request (a pixel buffer) means long decoding work: that goes to the thread pool,
        // so the loop's other connections do not wait behind it. A method registered to run off
        // the loop never starts on it.
        let inline =
            method.execution == .onLoop && core.configuration.startHandlersInline
            && request.count <= Self.inlineRequestLimit
        if let synchronous = method.synchronousHandler, inline {
            answer(stream, with: synchronous, request: request, context: context)
            core.callEnded(peer: peerKey)
            return
        }
        let writer = ServerResponseWriter(
            connection: self, stream: stream, kind: method.kind, accepted: accepted,
            defaultCompression: core.configuration.responseCompression,
            highWater: core.configuration.streamWriteHighWater)
        stream.writer = writer
        let handler = method.handler
        let deadline = start.deadline
        let boundStream = LoopBound(stream, loop: loop)
        var streaming: (handler: ServerMethod.StreamingHandler, requests: RequestStream)?
        if let streamingHandler = method.streamingHandler {
            let (messages, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            stream.requests = continuation
            let consumption = RequestConsumption()
            // Weak: the notification lives in the consumption it reads.
            consumption.setNotification { [self, weak consumption] in
                let consumption = consumption
                loop.execute { [self] in
                    guard let consumption else { return }
                    requestsTaken(boundStream.value, count: consumption.takeCount())
                }
            }
            streaming = (streamingHandler, RequestStream(messages: messages, consumption: consumption))
        }
        let streamingCall = streaming
        let body: @Sendable () async -> Void = { [self] in
            // The handler is done with this call whatever happens to its stream.
            defer { core.callEnded(peer: peerKey) }
            assert(
                method.execution != .mayBlock || BlockingExecutor.isCurrentThreadBlocking,
                "\(method.path) may block: it must run on the blocking pool")
            var status = Status.ok
            var errorMetadata = Metadata()
            do {
                if let streamingCall {
                    try await streamingCall.handler(streamingCall.requests, context, writer)
                } else {
                    try await handler(request, context, writer)
                }
            } catch {
                (status, errorMetadata) = HandlerFailure.status(of: error, deadline: deadline)
            }
            var completion = writer.finish()
            if status.code == .ok && (method.kind == .unary || method.kind == .clientStreaming)
                && completion.messages != 1
            {
                status = Status(code: .internalError, message: "a unary handler must write exactly one response")
            }
            if status.code != .ok { completion.unaryResponse = nil }
            completion.trailing.append(contentsOf: errorMetadata)
            let finalStatus = status
            let finalCompletion = completion
            if loop.inLoop {
                // The handler completed without suspending: answer in the same loop iteration.
                complete(boundStream.value, status: finalStatus, completion: finalCompletion)
            } else {
                loop.execute { [self] in complete(boundStream.value, status: finalStatus, completion: finalCompletion) }
            }
        }
        if inline, streamingCall == nil, #available(macOS 26.0, *) {
            stream.task = Task.immediate(operation: body)
        } else {
            stream.task = Task(executorPreference: core.executor(for: method), operation: body)
        }
    }

    /// Answers a unary call from a synchronous handler in this loop iteration: no task, no writer,
    /// the framed response and the status handed to nghttp2 together.
    private func answer(
        _ stream: ServerStream, with handler: ServerMethod.SynchronousUnaryHandler, request: [UInt8],
        context: ServerContext
    ) {
        var completion = ServerResponseWriter.Completion(
            messages: 0, trailing: Metadata(), unsentInitial: Metadata(), unaryResponse: nil, encoding: nil)
        var status = Status.ok
        do throws(RPCError) {
            let message = try handler(request, context)
            let algorithm = ServerResponseWriter.algorithm(
                nil, default: core.configuration.responseCompression, accepted: context.acceptedCompression)
            completion.unaryResponse = try ServerResponseWriter.frame(message, compression: algorithm)
            completion.messages = 1
            completion.encoding = algorithm == .identity ? nil : algorithm
        } catch {
            status = error.status
            completion.trailing = error.metadata
        }
        complete(stream, status: status, completion: completion)
    }

    private func complete(_ stream: ServerStream, status: Status, completion: ServerResponseWriter.Completion) {
        let action = stream.machine.handlerFinished(
            status: status, trailing: completion.trailing, unaryResponse: completion.unaryResponse,
            initialMetadata: completion.unsentInitial, encoding: completion.encoding)
        perform(action, on: stream)
    }

    /// The algorithms a `grpc-accept-encoding` header names ("identity, deflate, gzip"), in
    /// its order, unknown names left out.
    static func parseAcceptEncoding(_ header: String?) -> [CompressionAlgorithm] {
        guard let header else { return [] }
        // Read as bytes: the generic trimming of each name (`trimmingPrefix`) took about 5 µs
        // of every call, a Capture's included.
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var algorithms = [CompressionAlgorithm]()
        for part in header.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let name = part.drop(while: isBlank).prefix { !isBlank($0) }
            if let algorithm = CompressionAlgorithm(name: String(decoding: name, as: UTF8.self)) {
                algorithms.append(algorithm)
            }
        }
        return algorithms
    }

    private func deadlineExpired(_ stream: ServerStream) {
        stream.timer = nil
        switch stream.machine.deadlineExpired() {
        case .none:
            break
        case .reject(let rejection):
            reject(stream, rejection)
        case .cancelHandler(let error, let finish):
            cancelHandler(stream, error, then: finish)
        }
    }

    // MARK: Responses

    /// Tells the configured call observer, if any, that a call ended.
    private func observe(_ stream: ServerStream, _ status: Status) {
        guard let observer = core.configuration.callObserver else { return }
        observer(
            CallRecord(
                path: stream.machine.path ?? "", status: status, duration: .now - stream.startedAt,
                requestMetadata: stream.machine.metadata, peer: peer))
    }

    /// Answers an immediate error as Trailers-Only.
    private func reject(_ stream: ServerStream, _ rejection: ServerStreamStateMachine.Rejection) {
        machine.released(rejection.releasedBytes)
        stream.timer?.cancel()
        stream.timer = nil
        observe(stream, rejection.error.status)
        var headers = trailersOnlyBase()
        for (name, value) in rejection.extraHeaders { headers.add(name, value) }
        addStatus(&headers, rejection.error.status)
        headers.add(rejection.error.metadata)
        submitResponse(stream, headers, withData: false)
    }

    private func trailersOnlyBase() -> HeaderBlock {
        var headers = HeaderBlock()
        headers.add(":status", "200")
        headers.add("content-type", "application/grpc")
        return headers
    }

    private func addStatus(_ headers: inout HeaderBlock, _ status: Status) {
        headers.add("grpc-status", String(status.code.rawValue))
        if !status.message.isEmpty { headers.add("grpc-message", bytes: PercentEncoding.encode(status.message)) }
    }

    private func statusHeaders(_ status: Status, _ metadata: Metadata) -> HeaderBlock {
        var headers = HeaderBlock()
        addStatus(&headers, status)
        headers.add(metadata)
        return headers
    }

    private func responseHeaders(_ kind: ServerStreamStateMachine.ResponseHeaders) -> HeaderBlock {
        switch kind {
        case .plain:
            return HeaderBlock(core.plainResponseHeaders)
        case .custom(let initial, let encoding):
            var headers = HeaderBlock()
            headers.add(":status", "200")
            headers.add("content-type", "application/grpc")
            if let encoding { headers.add("grpc-encoding", encoding.name) }
            headers.add("grpc-accept-encoding", core.acceptEncodingHeader)
            if let initial { headers.add(initial) }
            return headers
        }
    }

    private func submitResponse(_ stream: ServerStream, _ headers: HeaderBlock, withData: Bool) {
        guard let session else { return }
        answersReady = true
        let rc: Int32
        if withData {
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: sharedReadCallback)
            rc = headers.withNV { nv, count in nghttp2_submit_response(session, stream.id, nv, count, &provider) }
        } else {
            rc = headers.withNV { nv, count in nghttp2_submit_response(session, stream.id, nv, count, nil) }
        }
        if rc != 0 {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
        loop.markDirty(self)
    }

    private func resumeData(_ stream: ServerStream) {
        guard let session else { return }
        nghttp2_session_resume_data(session, stream.id)
        loop.markDirty(self)
    }

    /// Queues a framed message from the writer.
    func enqueue(_ stream: ServerStream, bytes: [UInt8], initialMetadata: Metadata?, encoding: CompressionAlgorithm?) {
        loop.assertInLoop()
        guard session != nil else { return }
        switch stream.machine.handlerWrote(bytes, initialMetadata: initialMetadata, encoding: encoding) {
        case .none, .queued: break
        case .submitHeaders(let kind): submitResponse(stream, responseHeaders(kind), withData: true)
        case .resumeData: resumeData(stream)
        }
    }

    /// Sends a call's status as its state machine decided.
    private func perform(_ action: ServerStreamStateMachine.FinishAction, on stream: ServerStream) {
        guard let status = action.status else { return }
        observe(stream, status)
        // A handler that returned before the client half-closed reads no more requests.
        stream.requests?.finish()
        stream.requests = nil
        stream.timer?.cancel()
        stream.timer = nil
        switch action {
        case .none:
            break
        case .trailersOnly(let status, let metadata):
            var headers = trailersOnlyBase()
            addStatus(&headers, status)
            headers.add(metadata)
            submitResponse(stream, headers, withData: false)
        case .submitHeadersThenTrailers(let kind, _):
            submitResponse(stream, responseHeaders(kind), withData: true)
        case .trailers(_, let resume):
            answersReady = true
            if resume { resumeData(stream) } else { loop.markDirty(self) }
        }
    }
}

extension ServerConnection: ServedConnection {
    func beginDraining() { startGoaway() }
}
