internal import CNghttp2
internal import Glibc

/// The client side of one HTTP/2 connection; loop thread only.
final class ClientConnection: H2Connection, @unchecked Sendable {
    private let core: ClientCore
    private var calls: [Int32: ClientCall] = [:]
    private var connecting: Bool
    private(set) var goawayReceived = false
    private let authority: String

    init(fd: Int32, connecting: Bool, loop: EventLoop, core: ClientCore, authority: String) {
        self.core = core
        self.connecting = connecting
        self.authority = authority
        super.init(fd: fd, loop: loop)
        isWritable = !connecting
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        // We acknowledge DATA ourselves, so a consumer that stops reading stops the server.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_session_client_new2(&session, sharedCallbacks, userData, option)
        nghttp2_option_del(option)
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 4 << 20)
        register(events: connecting ? baseEvents | EPOLLOUT.rawValue : nil)
        loop.markDirty(self)
    }

    /// Whether new calls may use this connection.
    var isUsable: Bool { !isClosed && !goawayReceived }

    override func writableEvent() {
        if connecting {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                failAll(RPCError(code: .unavailable, message: "connect failed: \(Socket.errnoText(error))"))
                close()
                return
            }
            connecting = false
            isWritable = true
        }
        loop.markDirty(self)
    }

    /// Submits a call's request.
    func start(_ call: ClientCall) {
        guard let session else {
            call.fail(RPCError(code: .unavailable, message: "connection closed"))
            return
        }
        var headers = HeaderBlock()
        headers.add(":method", "POST")
        headers.add(":scheme", "http")
        headers.add(":path", call.path)
        headers.add(":authority", authority)
        headers.add("content-type", "application/grpc")
        headers.add("te", "trailers")
        headers.add("user-agent", core.configuration.userAgent)
        headers.add("grpc-accept-encoding", core.acceptEncodingHeader)
        if let encoding = call.requestEncoding { headers.add("grpc-encoding", encoding.name) }
        if let timeout = call.timeout { headers.add("grpc-timeout", GRPCTimeout.encode(timeout)) }
        headers.add(call.metadata)
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: sharedReadCallback)
        let id = headers.withNV { nv, count in nghttp2_submit_request(session, nil, nv, count, &provider, nil) }
        guard id > 0 else {
            call.fail(RPCError(code: .unavailable, message: "cannot open a stream (\(id))"))
            return
        }
        call.streamID = id
        call.connection = self
        calls[id] = call
        if case .stream(_, let state) = call.sink {
            state.setConsumptionHandler { [loop] in
                loop.execute { [weak self, weak call] in
                    guard let self, let call, case .stream(_, let state) = call.sink else { return }
                    self.messagesConsumed(call, count: state.takeConsumed())
                }
            }
        }
        if let timeout = call.timeout {
            call.timer = loop.schedule(at: .now + timeout) { [weak self, weak call] in
                guard let self, let call else { return }
                self.cancel(call, RPCError(code: .deadlineExceeded, message: "deadline exceeded"))
            }
        }
        loop.markDirty(self)
    }

    /// The consumer of a streaming call took messages: acknowledge withheld DATA once the
    /// buffer is under its bound again.
    func messagesConsumed(_ call: ClientCall, count: Int) {
        _ = call.consumed(count)
        guard let session, call.withheldBytes > 0, calls[call.streamID] === call,
            call.unconsumedBytes <= core.configuration.streamBufferBytes
        else { return }
        nghttp2_session_consume(session, call.streamID, call.withheldBytes)
        call.withheldBytes = 0
        loop.markDirty(self)
    }

    /// Ends a call locally and resets its stream.
    func cancel(_ call: ClientCall, _ error: RPCError) {
        guard !call.isDone else { return }
        call.fail(error)
        if let session, call.streamID > 0, calls[call.streamID] === call {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), call.streamID, NGHTTP2_CANCEL.rawValue)
            loop.markDirty(self)
        }
    }

    /// Sends GOAWAY and closes once it is written; in-flight calls fail.
    func shutdown() {
        guard let session else { return }
        nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
        loop.markDirty(self)
    }

    private func failAll(_ error: RPCError) {
        let all = calls.values
        calls = [:]
        for call in all { call.fail(error) }
    }

    override func didClose() {
        failAll(RPCError(code: .unavailable, message: "connection closed"))
        core.connectionClosed(self)
    }

    // MARK: Callbacks

    override func readData(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let call = calls[streamID] else {
            flags.pointee |= H2.eof
            return 0
        }
        let take = min(length, call.requestBytes.count - call.sentOffset)
        if take > 0 {
            call.requestBytes.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + call.sentOffset, count: take)
            }
            call.sentOffset += take
        }
        call.requestBytesTaken()
        if call.sentOffset == call.requestBytes.count {
            // A streaming-request call waits for its next message, or its half-close.
            guard call.requestsFinished else { return take > 0 ? take : H2.deferred }
            flags.pointee |= H2.eof
        }
        return take
    }

    /// Queues a framed request message of a streaming-request call; `sent` resumes once
    /// nghttp2 has taken it whole, so a sender never runs ahead of the flow-control window.
    func send(_ call: ClientCall, _ framed: [UInt8], sent: CheckedContinuation<Void, any Error>) {
        guard !call.isDone, !call.requestsFinished, let session, calls[call.streamID] === call else {
            sent.resume(
                throwing: call.isDone
                    ? call.sendError : RPCError(code: .failedPrecondition, message: "the requests have ended"))
            return
        }
        call.requestBytes += framed
        call.waitingSenders.append((call.requestBytes.count, sent))
        nghttp2_session_resume_data(session, call.streamID)
        loop.markDirty(self)
    }

    /// Ends the requests of a streaming-request call (END_STREAM after the queued bytes).
    func halfClose(_ call: ClientCall) {
        guard !call.isDone, !call.requestsFinished, let session, calls[call.streamID] === call else { return }
        call.requestsFinished = true
        nghttp2_session_resume_data(session, call.streamID)
        loop.markDirty(self)
    }

    override func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        guard let call = calls[frame.pointee.hd.stream_id], !call.isDone else { return 0 }
        let key = String(decoding: name, as: UTF8.self)
        let isTrailers = frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS
        switch key {
        case ":status": call.httpStatus = Int(String(decoding: value, as: UTF8.self))
        case "content-type": call.contentType = String(decoding: value, as: UTF8.self)
        case "grpc-encoding": call.encodingName = String(decoding: value, as: UTF8.self)
        case "grpc-status": call.grpcStatus = Int(String(decoding: value, as: UTF8.self))
        case "grpc-message": call.grpcMessage = PercentEncoding.decode(value)
        default:
            if isTrailers {
                call.trailerMetadata.addFromWire(name: key, value: value)
            } else {
                call.headerMetadata.addFromWire(name: key, value: value)
            }
        }
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        switch header.type {
        case H2.headers:
            guard let call = calls[header.stream_id], !call.isDone else { return 0 }
            let endStream = header.flags & H2.endStream != 0
            if frame.pointee.headers.cat == NGHTTP2_HCAT_RESPONSE {
                if endStream {
                    complete(call, trailersOnly: true)
                } else {
                    responseHeaders(call)
                }
            } else if endStream {
                complete(call, trailersOnly: false)
            }
        case H2.data:
            if header.flags & H2.endStream != 0, let call = calls[header.stream_id], !call.isDone {
                call.fail(RPCError(code: .internalError, message: "the server ended the stream without trailers"))
            }
        case H2.goaway:
            goawayReceived = true
        default:
            break
        }
        return 0
    }

    override func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let call = calls[streamID], !call.isDone else {
            nghttp2_session_consume_connection(session, data.count)
            return 0
        }
        if call.isStreaming && call.unconsumedBytes > core.configuration.streamBufferBytes {
            call.withheldBytes += data.count
        } else {
            nghttp2_session_consume(session, streamID, data.count)
        }
        var failure: RPCError?
        do throws(DeframingError) {
            try call.deframer.feed(data) { (compressed, bytes) throws(DeframingError) in
                guard failure == nil else { return }
                do throws(RPCError) {
                    let message = try MessageDecoder.decode(
                        compressed: compressed, bytes: bytes, encoding: call.responseEncoding, limit: call.maxReceive)
                    call.deliver(message, wireSize: bytes.count + Envelope.headerSize)
                } catch {
                    failure = error
                }
            }
        } catch {
            failure = RPCError(code: error.statusCode, message: error.message)
        }
        if let failure { cancel(call, failure) }
        return 0
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let call = calls.removeValue(forKey: streamID) else { return 0 }
        if call.withheldBytes > 0 {
            // The stream is gone; give its withheld bytes back to the connection window.
            nghttp2_session_consume_connection(session, call.withheldBytes)
            call.withheldBytes = 0
        }
        if !call.isDone {
            call.fail(Self.error(forReset: errorCode))
        }
        return 0
    }

    // MARK: Responses

    private func responseHeaders(_ call: ClientCall) {
        if call.httpStatus != 200 {
            cancel(call, Self.error(forHTTPStatus: call.httpStatus))
            return
        }
        if let name = call.encodingName, name != "identity" {
            guard let algorithm = CompressionAlgorithm(name: name),
                core.configuration.acceptedCompression.contains(algorithm)
            else {
                cancel(
                    call, RPCError(code: .internalError, message: "the server used unsupported encoding \"\(name)\""))
                return
            }
            call.responseEncoding = algorithm
        }
        call.deliverInitial()
    }

    private func complete(_ call: ClientCall, trailersOnly: Bool) {
        let initial = trailersOnly ? Metadata() : call.headerMetadata
        let trailing = trailersOnly ? call.headerMetadata : call.trailerMetadata
        var status: Status
        if call.httpStatus != 200 {
            status = Self.error(forHTTPStatus: call.httpStatus).status
        } else if let code = call.grpcStatus {
            status = Status(code: Status.Code(rawValue: code), message: call.grpcMessage ?? "")
        } else {
            status = Status(code: .unknown, message: "the server sent no grpc-status")
        }
        if status.code == .ok && call.deframer.hasPartialMessage {
            status = Status(code: .internalError, message: "the response ended inside a message")
        }
        call.complete(status, initial: initial, trailing: trailing)
        if let session, calls[call.streamID] != nil,
            nghttp2_session_get_stream_local_close(session, call.streamID) == 0
        {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), call.streamID, NGHTTP2_NO_ERROR.rawValue)
        }
    }

    /// Maps HTTP status to gRPC status as `http-grpc-status-mapping.md` specifies.
    static func error(forHTTPStatus status: Int?) -> RPCError {
        let code: Status.Code
        switch status {
        case 400: code = .internalError
        case 401: code = .unauthenticated
        case 403: code = .permissionDenied
        case 404: code = .unimplemented
        case 429, 502, 503, 504: code = .unavailable
        default: code = .unknown
        }
        return RPCError(code: code, message: "HTTP status \(status.map(String.init) ?? "missing")")
    }

    /// Maps an RST_STREAM error code to a status, as PROTOCOL-HTTP2.md specifies.
    static func error(forReset code: UInt32) -> RPCError {
        switch code {
        case NGHTTP2_REFUSED_STREAM.rawValue:
            RPCError(code: .unavailable, message: "the server refused the stream")
        case NGHTTP2_CANCEL.rawValue:
            RPCError(code: .cancelled, message: "the server cancelled the stream")
        case NGHTTP2_ENHANCE_YOUR_CALM.rawValue:
            RPCError(code: .resourceExhausted, message: "the server asked to enhance your calm")
        case NGHTTP2_INADEQUATE_SECURITY.rawValue:
            RPCError(code: .permissionDenied, message: "inadequate security")
        case NGHTTP2_NO_ERROR.rawValue:
            RPCError(code: .internalError, message: "the stream closed without a status")
        default:
            RPCError(code: .internalError, message: "the stream was reset with HTTP/2 error \(code)")
        }
    }
}
