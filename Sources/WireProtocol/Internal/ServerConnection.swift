internal import CNghttp2
internal import Glibc

/// The server side of one HTTP/2 connection: routes request streams to handlers and sends their
/// responses. Loop thread only, except where a writer hands work over with `loop.execute`.
final class ServerConnection: H2Connection, @unchecked Sendable {
    private let core: ServerCore
    private let peer: String
    /// What this connection's calls count against in the per-peer cap.
    private let peerKey: String
    private var streams: [Int32: ServerStream] = [:]
    private var goawaySent = false
    private var pingWindowStart = ContinuousClock.now
    private var pingsInWindow = 0
    private var idleTimer: LoopTimer?
    private var lastActivity = ContinuousClock.now
    private var resetTokens: Double
    private var resetRefill = ContinuousClock.now
    /// Request bytes held by streams still receiving.
    private var bufferedRequestBytes = 0

    init(fd: Int32, loop: EventLoop, core: ServerCore, peer: String) {
        self.core = core
        self.peer = peer
        peerKey = ServerCore.peerKey(peer)
        resetTokens = Double(core.configuration.resetStreamBurst)
        super.init(fd: fd, loop: loop)
        let configuration = core.configuration
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_settings(option, 32)
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
    }

    func start() {
        register()
        loop.markDirty(self)
        armIdleTimer()
        armKeepalive()
    }

    private var keepaliveTimer: LoopTimer?

    /// Pings a silent peer and closes the connection if nothing comes back in time.
    private func armKeepalive() {
        guard let interval = core.configuration.keepaliveInterval, !isClosed else { return }
        // The timers of a connection hold it strongly and are cancelled (their closures
        // dropped) when it closes. A weak reference would give the connection a side table, and
        // from then on every retain and release of it, several per request header, would take
        // the runtime's slow path: about a tenth of a small call's CPU.
        keepaliveTimer = loop.schedule(at: max(lastReadAt + interval, .now + interval / 8)) { [self] in
            guard !self.isClosed, let session = self.session else { return }
            if ContinuousClock.now - self.lastReadAt < interval {
                self.armKeepalive()
                return
            }
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            self.loop.markDirty(self)
            let pingedAt = ContinuousClock.now
            self.keepaliveTimer = self.loop.schedule(at: pingedAt + self.core.configuration.keepaliveTimeout) {
                [self] in
                guard !self.isClosed else { return }
                if self.lastReadAt < pingedAt {
                    self.close()
                } else {
                    self.armKeepalive()
                }
            }
        }
    }

    private func armIdleTimer() {
        guard let timeout = core.configuration.idleTimeout, !isClosed else { return }
        idleTimer?.cancel()
        // Never in the past: a connection busy with a long stream is checked again a full
        // timeout later rather than in a tight loop.
        let next = max(lastActivity + timeout, ContinuousClock.now + timeout / 4)
        idleTimer = loop.schedule(at: streams.isEmpty ? next : ContinuousClock.now + timeout) { [self] in
            guard !self.isClosed else { return }
            guard ContinuousClock.now - self.lastActivity >= timeout else { return self.armIdleTimer() }
            if self.streams.isEmpty {
                self.startGoaway()
            } else if self.streams.values.allSatisfy({ $0.phase == .receiving }) {
                self.closeStalled()
            } else {
                self.armIdleTimer()
            }
        }
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
        guard !isClosed, let session, !goawaySent else { return }
        goawaySent = true
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), errorCode,
            nil, 0)
        loop.markDirty(self)
    }

    override func didClose() {
        idleTimer?.cancel()
        keepaliveTimer?.cancel()
        let error = RPCError(code: .cancelled, message: "connection closed")
        for stream in streams.values {
            abandon(stream, error)
            stream.detach()
        }
        streams = [:]
        core.connectionClosed()
    }

    /// Returns a stream's request bytes to the connection's budget.
    private func releaseBuffered(_ stream: ServerStream) {
        bufferedRequestBytes -= stream.bufferedBytes
        stream.bufferedBytes = 0
    }

    private func abandon(_ stream: ServerStream, _ error: RPCError) {
        if stream.phase == .receiving || stream.phase == .running { observe(stream, error.status) }
        releaseBuffered(stream)
        stream.timer?.cancel()
        stream.timer = nil
        stream.phase = .finished
        stream.pending = []
        stream.writer?.close(error)
        stream.task?.cancel()
        detach(stream)
    }

    /// Drops the stream's references to its writer and task once the connection is done with it.
    ///
    /// The writer holds the stream (and this connection), so without this every call that ran a
    /// handler would keep its stream, writer, task and connection alive forever (found by the
    /// server-connection fuzzer; see `FuzzRegressionTests`).
    private func detach(_ stream: ServerStream) {
        stream.writer = nil
        stream.task = nil
    }

    // MARK: Callbacks

    override func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == H2.headers, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let id = frame.pointee.hd.stream_id
        streams[id] = ServerStream(id: id)
        lastActivity = .now
        return 0
    }

    override func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        guard let stream = streams[frame.pointee.hd.stream_id], !stream.headersComplete else { return 0 }
        stream.headerBytes += name.count + value.count + 32
        if stream.headerBytes > core.configuration.maxHeaderListSize {
            return H2.temporalFailure
        }
        switch RequestHeaderName(name) {
        case .method: stream.isPost = value.elementsEqual("POST".utf8)
        case .path:
            stream.target = core.methods.method(forPath: value)
            stream.unknownPath = stream.target == nil ? String(decoding: value, as: UTF8.self) : nil
        case .contentType: stream.hasGRPCContentType = Self.isGRPCContentType(value)
        case .encoding: stream.encodingName = String(decoding: value, as: UTF8.self)
        case .acceptEncoding: stream.acceptEncoding = String(decoding: value, as: UTF8.self)
        case .timeout: stream.timeoutText = String(decoding: value, as: UTF8.self)
        case .ignored: break
        case .other: stream.metadata.addFromWire(name: String(decoding: name, as: UTF8.self), value: value)
        }
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case H2.headers:
            guard let stream = streams[header.stream_id] else { return 0 }
            if !stream.headersComplete {
                stream.headersComplete = true
                requestHeadersComplete(stream)
            }
            if header.flags & H2.endStream != 0 { endOfRequest(stream) }
        case H2.data:
            if header.flags & H2.endStream != 0, let stream = streams[header.stream_id] { endOfRequest(stream) }
        case H2.ping:
            if header.flags & H2.ack == 0 {
                countPing()
            } else if keepaliveTimer != nil {
                // Our keepalive PING came back: start the next interval now.
                keepaliveTimer?.cancel()
                armKeepalive()
            }
        case H2.rstStream:
            countReset()
        default:
            break
        }
        return 0
    }

    override func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.type == H2.headers || header.type == H2.data, header.flags & H2.endStream != 0,
            let stream = streams[header.stream_id], stream.resetAfterEnd, !stream.requestEnded
        else { return 0 }
        stream.resetAfterEnd = false
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_NO_ERROR.rawValue)
        return 0
    }

    override func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streams[streamID], stream.phase == .receiving, let method = stream.method else { return 0 }
        lastActivity = .now
        if bufferedRequestBytes + data.count > core.configuration.maxBufferedRequestBytesPerConnection {
            reject(
                stream,
                RPCError(code: .resourceExhausted, message: "too many request bytes in flight on this connection"))
            return 0
        }
        stream.bufferedBytes += data.count
        bufferedRequestBytes += data.count
        var failure: RPCError?
        do throws(DeframingError) {
            try stream.deframer.feed(data) { (compressed, bytes) throws(DeframingError) in
                guard failure == nil else { return }
                stream.requestCount += 1
                if stream.requestCount > 1 {
                    failure = RPCError(code: .unimplemented, message: "expected one request message, received more")
                    return
                }
                stream.requestWasCompressed = compressed
                do throws(RPCError) {
                    stream.request = try MessageDecoder.decode(
                        compressed: compressed, bytes: bytes, encoding: stream.requestEncoding,
                        limit: method.maxRequestBytes)
                } catch {
                    failure = error
                }
            }
        } catch {
            failure = RPCError(code: error.statusCode, message: error.message)
        }
        if let failure { reject(stream, failure) }
        return 0
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        releaseBuffered(stream)
        if stream.phase != .finished && stream.phase != .rejected {
            abandon(stream, RPCError(code: .cancelled, message: "the client cancelled the call"))
        } else {
            stream.timer?.cancel()
            detach(stream)
        }
        stream.detach()
        return 0
    }

    override func readData(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(H2.temporalFailure) }
        let copied = stream.copyPending(into: buffer, length: length)
        if copied > 0 { stream.writer?.drained(copied) }
        if stream.pending.isEmpty, let trailers = stream.trailers {
            stream.trailers = nil
            trailers.withNV { nv, count in _ = nghttp2_submit_trailer(session, streamID, nv, count) }
            flags.pointee |= H2.eof | H2.noEndStream
            return copied
        }
        if copied > 0 { return copied }
        stream.dataDeferred = true
        return H2.deferred
    }

    private func countPing() {
        let now = ContinuousClock.now
        if now - pingWindowStart > .seconds(1) {
            pingWindowStart = now
            pingsInWindow = 0
        }
        pingsInWindow += 1
        if pingsInWindow > core.configuration.maxPingsPerSecond { calmDown() }
    }

    /// Counts a RST_STREAM from the client against a token bucket (rapid reset, CVE-2023-44487).
    private func countReset() {
        let now = ContinuousClock.now
        let elapsed = now - resetRefill
        resetRefill = now
        let (seconds, attoseconds) = elapsed.components
        let refill = (Double(seconds) + Double(attoseconds) / 1e18) * Double(core.configuration.resetStreamsPerSecond)
        resetTokens = min(Double(core.configuration.resetStreamBurst), resetTokens + refill)
        if resetTokens < 1 {
            calmDown()
        } else {
            resetTokens -= 1
        }
    }

    /// Ends a misbehaving connection: GOAWAY ENHANCE_YOUR_CALM, then close once it is written.
    private func calmDown() {
        guard let session, !isClosed else { return }
        goawaySent = true
        nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        loop.markDirty(self)
    }

    // MARK: Requests

    private func requestHeadersComplete(_ stream: ServerStream) {
        guard stream.isPost == true else {
            respondHTTP(stream, status: 405)
            return
        }
        guard stream.hasGRPCContentType == true else {
            respondHTTP(stream, status: 415)
            return
        }
        if core.isShuttingDown && goawaySent {
            reject(stream, RPCError(code: .unavailable, message: "the server is shutting down"))
            return
        }
        if let text = stream.timeoutText {
            // The spec leaves a malformed grpc-timeout open; like grpc-go we answer INTERNAL,
            // since it is a transport-level malformation rather than a bad argument.
            guard let timeout = GRPCTimeout.parse(text) else {
                reject(stream, RPCError(code: .internalError, message: "malformed grpc-timeout: \(text)"))
                return
            }
            let deadline = ContinuousClock.now + timeout
            stream.deadline = deadline
            // Strong, like the connection's timers: the stream cancels it when it closes.
            stream.timer = loop.schedule(at: deadline) { [self, stream] in deadlineExpired(stream) }
        }
        guard let method = stream.target else {
            reject(stream, RPCError(code: .unimplemented, message: "method not found: \(stream.unknownPath ?? "")"))
            return
        }
        if let name = stream.encodingName {
            guard let algorithm = CompressionAlgorithm(name: name),
                algorithm == .identity || core.configuration.enabledCompression.contains(algorithm)
            else {
                reject(
                    stream,
                    RPCError(code: .unimplemented, message: "compression algorithm \"\(name)\" is not supported"),
                    extra: [("grpc-accept-encoding", core.acceptEncodingHeader)])
                return
            }
            stream.requestEncoding = algorithm
        }
        stream.method = method
        stream.deframer = MessageDeframer(maxMessageBytes: method.maxRequestBytes)
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

    private func endOfRequest(_ stream: ServerStream) {
        stream.requestEnded = true
        guard stream.phase == .receiving, stream.method != nil else { return }
        do throws(DeframingError) {
            try stream.deframer.finish()
        } catch {
            reject(stream, RPCError(code: .internalError, message: "request ended inside a message"))
            return
        }
        guard stream.requestCount == 1, let request = stream.request else {
            reject(stream, RPCError(code: .unimplemented, message: "expected one request message, received none"))
            return
        }
        stream.request = nil
        startHandler(stream, request: request)
    }

    /// Requests up to this size start their handler on the loop (when handlers start inline).
    static let inlineRequestLimit = 64 << 10

    private func startHandler(_ stream: ServerStream, request: [UInt8]) {
        guard let method = stream.method else { return }
        guard core.admitCall(peer: peerKey) else {
            let cap = core.configuration.maxConcurrentCallsPerPeer ?? 0
            reject(
                stream,
                RPCError(
                    code: .resourceExhausted,
                    message: "this client already has \(cap) calls running, the most one client may; "
                        + "retry when some have finished"))
            return
        }
        releaseBuffered(stream)
        stream.phase = .running
        let accepted = Self.parseAcceptEncoding(stream.acceptEncoding)
        let context = ServerContext(
            path: method.path, requestMetadata: stream.metadata, deadline: stream.deadline, peer: peer,
            acceptedCompression: accepted,
            requestCompression: stream.requestWasCompressed ? stream.requestEncoding ?? .identity : .identity)
        // A large request (a pixel buffer) means long decoding work: that goes to the thread pool,
        // so the loop's other connections do not wait behind it.
        let inline = core.configuration.startHandlersInline && request.count <= Self.inlineRequestLimit
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
        let deadline = stream.deadline
        let body: @Sendable () async -> Void = { [self] in
            // The handler is done with this call whatever happens to its stream.
            defer { core.callEnded(peer: peerKey) }
            var status = Status.ok
            var errorMetadata: Metadata?
            do {
                try await handler(request, context, writer)
            } catch let error as RPCError {
                status = error.status
                errorMetadata = error.metadata
            } catch is CancellationError {
                if let deadline, ContinuousClock.now >= deadline {
                    status = Status(code: .deadlineExceeded, message: "deadline exceeded")
                } else {
                    status = Status(code: .cancelled, message: "the call was cancelled")
                }
            } catch {
                status = Status(code: .unknown, message: "handler failed: \(type(of: error))")
            }
            var completion = writer.finish()
            if status.code == .ok && method.kind == .unary && completion.messages != 1 {
                status = Status(code: .internalError, message: "a unary handler must write exactly one response")
            }
            if status.code != .ok { completion.unaryResponse = nil }
            if let errorMetadata { completion.trailing.append(contentsOf: errorMetadata) }
            let finalStatus = status
            let finalCompletion = completion
            if loop.inLoop {
                // The handler completed without suspending: answer in the same loop iteration.
                complete(stream, status: finalStatus, completion: finalCompletion)
            } else {
                loop.execute { [self] in complete(stream, status: finalStatus, completion: finalCompletion) }
            }
        }
        if inline, #available(macOS 26.0, *) {
            stream.task = Task.immediate(operation: body)
        } else {
            stream.task = Task(operation: body)
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
        if let response = completion.unaryResponse {
            enqueue(stream, bytes: response, initialMetadata: completion.unsentInitial, encoding: completion.encoding)
            finish(stream, status: status, trailing: completion.trailing, initial: nil)
        } else {
            finish(stream, status: status, trailing: completion.trailing, initial: completion.unsentInitial)
        }
    }

    static func parseAcceptEncoding(_ header: String?) -> [CompressionAlgorithm] {
        guard let header else { return [] }
        return header.split(separator: ",").compactMap {
            CompressionAlgorithm(name: String($0.trimmingPrefix(" ").prefix { $0 != " " }))
        }
    }

    private func deadlineExpired(_ stream: ServerStream) {
        stream.timer = nil
        let error = RPCError(code: .deadlineExceeded, message: "deadline exceeded")
        switch stream.phase {
        case .receiving:
            reject(stream, error)
        case .running:
            stream.writer?.close(error)
            stream.task?.cancel()
            stream.pending = []
            finish(stream, status: error.status, trailing: Metadata(), initial: nil)
        case .rejected, .finished:
            break
        }
    }

    // MARK: Responses

    /// Tells the configured call observer, if any, that a call ended.
    private func observe(_ stream: ServerStream, _ status: Status) {
        guard let observer = core.configuration.callObserver else { return }
        observer(
            CallRecord(
                path: stream.path ?? "", status: status, duration: .now - stream.startedAt,
                requestMetadata: stream.metadata, peer: peer))
    }

    /// Answers with only an HTTP status (405, 415): not a gRPC response.
    private func respondHTTP(_ stream: ServerStream, status: Int) {
        stream.phase = .rejected
        var headers = HeaderBlock()
        headers.add(":status", String(status))
        submitResponse(stream, headers, withData: false)
    }

    /// Answers an immediate error as Trailers-Only.
    private func reject(_ stream: ServerStream, _ error: RPCError, extra: [(String, String)] = []) {
        releaseBuffered(stream)
        stream.timer?.cancel()
        stream.timer = nil
        stream.phase = .rejected
        observe(stream, error.status)
        var headers = trailersOnlyBase()
        for (name, value) in extra { headers.add(name, value) }
        addStatus(&headers, error.status)
        headers.add(error.metadata)
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

    private func submitResponse(_ stream: ServerStream, _ headers: HeaderBlock, withData: Bool) {
        guard let session else { return }
        answersReady = true
        stream.headersSent = true
        if !stream.requestEnded { stream.resetAfterEnd = true }
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

    /// Queues a framed message from the writer.
    func enqueue(_ stream: ServerStream, bytes: [UInt8], initialMetadata: Metadata?, encoding: CompressionAlgorithm?) {
        guard stream.phase == .running, streams[stream.id] === stream, let session else { return }
        stream.pending.append(bytes)
        if !stream.headersSent {
            if encoding == nil && initialMetadata?.isEmpty ?? true {
                submitResponse(stream, HeaderBlock(core.plainResponseHeaders), withData: true)
                return
            }
            var headers = HeaderBlock()
            headers.add(":status", "200")
            headers.add("content-type", "application/grpc")
            if let encoding { headers.add("grpc-encoding", encoding.name) }
            headers.add("grpc-accept-encoding", core.acceptEncodingHeader)
            if let initialMetadata { headers.add(initialMetadata) }
            submitResponse(stream, headers, withData: true)
        } else if stream.dataDeferred {
            stream.dataDeferred = false
            nghttp2_session_resume_data(session, stream.id)
            loop.markDirty(self)
        }
    }

    /// Ends a running call with its status: trailers after the data, or Trailers-Only.
    func finish(_ stream: ServerStream, status: Status, trailing: Metadata, initial: Metadata?) {
        guard stream.phase == .running, streams[stream.id] === stream, let session else { return }
        stream.phase = .finished
        observe(stream, status)
        stream.timer?.cancel()
        stream.timer = nil
        if !stream.headersSent {
            var headers = trailersOnlyBase()
            addStatus(&headers, status)
            if let initial { headers.add(initial) }
            headers.add(trailing)
            submitResponse(stream, headers, withData: false)
            return
        }
        if status.code == .ok && status.message.isEmpty && trailing.isEmpty {
            stream.trailers = HeaderBlock(core.okTrailers)
            answersReady = true
        } else {
            var trailers = HeaderBlock()
            addStatus(&trailers, status)
            trailers.add(trailing)
            stream.trailers = trailers
            answersReady = true
        }
        if stream.dataDeferred {
            stream.dataDeferred = false
            nghttp2_session_resume_data(session, stream.id)
        }
        loop.markDirty(self)
    }
}
