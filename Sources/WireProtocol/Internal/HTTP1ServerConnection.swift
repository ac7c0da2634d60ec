internal import CNghttp2
internal import Glibc
internal import HTTP1

/// The server side of one HTTP/1.1 connection on the gRPC port (browsers, `curl`, load-balancer
/// health checks): reads requests with ``HTTP1RequestParser``, has ``WebGateway`` answer them,
/// and writes the answers in request order (pipelined requests wait their turn).
///
/// A request's head and body must arrive within `WebConfiguration.requestTimeout` of its first
/// byte (408 otherwise: a slow-header client cannot hold the connection), and a connection
/// with no request for `idleTimeout` is closed. After a parse error the answer says why and the
/// connection closes, since its framing can no longer be trusted. Loop thread only.
final class HTTP1ServerConnection: EventHandler, ServedConnection, @unchecked Sendable {
    private enum Item {
        case request(HTTP1RequestHead, [UInt8])
        case refusal(HTTP1ParseError)
    }

    private let fd: Int32
    private let loop: EventLoop
    private let core: ServerCore
    private let peer: String
    private let peerKey: String
    private let gateway: WebGateway
    private var parser: HTTP1RequestParser
    /// The request whose body is arriving.
    private var receiving: (head: HTTP1RequestHead, body: [UInt8])?
    /// Requests read whole (or a refusal), answered in order.
    private var waiting: [Item] = []
    private var answering = false
    private var inAnswerLoop = false
    /// Set by `Connection: close`, a refusal, a drain or the peer's EOF: close once answered.
    private var closeWhenAnswered = false
    private var output: [UInt8] = []
    private var outputStart = 0
    private var watchingWritable = false
    private var isClosed = false
    private var isClosing = false
    private var isHalfClosed = false
    private var requestTimer: LoopTimer?
    private var idleTimer: LoopTimer?

    init(fd: Int32, loop: EventLoop, core: ServerCore, peer: String) {
        self.fd = fd
        self.loop = loop
        self.core = core
        self.peer = peer
        peerKey = ServerCore.peerKey(peer)
        gateway = WebGateway(core: core)
        var limits = HTTP1RequestParser.Limits()
        limits.body = core.configuration.web.maxRequestBodyBytes
        parser = HTTP1RequestParser(limits: limits)
    }

    /// Takes over the socket with the bytes already read from it.
    func start(with bytes: [UInt8]) {
        loop.assertInLoop()
        loop.register(fd, handler: self, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
        receive(bytes)
        if core.isShuttingDown { beginDraining() }
    }

    func handleEvent(_ events: UInt32) {
        loop.assertInLoop()
        if events & EPOLLOUT.rawValue != 0 { flush() }
        guard !isClosed else { return }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readAvailable()
        }
    }

    // MARK: - Reading

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !isClosed {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 {
                if isClosing { continue }  // lingering: drop what the peer still sends
                receive(UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n))
            } else if n == 0 {
                peerFinished()
                return
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { close() }
                return
            }
        }
    }

    private func receive(_ bytes: some Collection<UInt8>) {
        idleTimer?.cancel()
        idleTimer = nil
        guard !closeWhenAnswered else { return }
        do {
            for event in try parser.feed(bytes) {
                switch event {
                case .head(let head):
                    receiving = (head, [])
                    if head.expectsContinue { write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                case .body(let part):
                    receiving?.body += part
                case .end:
                    if let (head, body) = receiving { waiting.append(.request(head, body)) }
                    receiving = nil
                }
            }
        } catch {
            receiving = nil
            waiting.append(.refusal(error))
            closeWhenAnswered = true
        }
        updateRequestTimer()
        answerWaiting()
    }

    /// The peer closed its side: answer what was read whole, then close.
    private func peerFinished() {
        closeWhenAnswered = true
        receiving = nil
        requestTimer?.cancel()
        if watchingWritable || answering || !waiting.isEmpty {
            // Stop watching for input (EOF keeps the socket readable), keep writing.
            loop.modify(fd, events: watchingWritable ? EPOLLOUT.rawValue : 0)
            answerWaiting()
        } else {
            close()
        }
    }

    /// A request started and not finished has `requestTimeout` to arrive, counted from its start.
    private func updateRequestTimer() {
        let midRequest = parser.isReadingHead || receiving != nil
        if !midRequest {
            requestTimer?.cancel()
            requestTimer = nil
        } else if requestTimer == nil {
            requestTimer = loop.schedule(at: .now + core.configuration.web.requestTimeout) { [self] in
                requestTimer = nil
                guard !isClosed, parser.isReadingHead || receiving != nil else { return }
                receiving = nil
                waiting.append(.refusal(HTTP1ParseError(status: 408, reason: "the request took too long to arrive")))
                closeWhenAnswered = true
                answerWaiting()
            }
        }
    }

    // MARK: - Answering

    private func answerWaiting() {
        guard !inAnswerLoop else { return }
        inAnswerLoop = true
        defer { inAnswerLoop = false }
        while !answering, !isClosed, !waiting.isEmpty {
            let item = waiting.removeFirst()
            switch item {
            case .refusal(let error):
                send(.text(error.status, error.reason + "\n"), keepAlive: false)
                waiting.removeAll()
            case .request(let head, let body):
                answering = true
                let keepAlive = head.keepAlive && !closeWhenAnswered
                if !keepAlive { closeWhenAnswered = true }
                gateway.answer(head, body: body, peer: peer, peerKey: peerKey, loop: loop) { [self] response in
                    answering = false
                    guard !isClosed else { return }
                    send(response, keepAlive: keepAlive && !closeWhenAnswered)
                    answerWaiting()
                }
            }
        }
        if !answering && waiting.isEmpty {
            if closeWhenAnswered {
                beginClosing()
            } else if receiving == nil && !parser.isReadingHead && idleTimer == nil {
                idleTimer = loop.schedule(at: .now + core.configuration.web.idleTimeout) { [self] in
                    idleTimer = nil
                    close()
                }
            }
        }
    }

    private func send(_ response: WebResponse, keepAlive: Bool) {
        var fields = response.fields
        fields.append(.init(name: "content-length", value: String(response.body.count)))
        if !keepAlive { fields.append(.init(name: "connection", value: "close")) }
        write(HTTP1ResponseHead(status: response.status, fields: fields).serialized() + response.body)
    }

    // MARK: - Writing and closing

    private func write(_ bytes: [UInt8]) {
        if outputStart == output.count {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
        }
        output += bytes
        flush()
    }

    private func flush() {
        guard !isClosed else { return }
        while outputStart < output.count {
            let n = output.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + outputStart, raw.count - outputStart, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outputStart += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                close()
                return
            }
        }
        let wantWritable = outputStart < output.count
        if wantWritable != watchingWritable {
            watchingWritable = wantWritable
            loop.modify(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (wantWritable ? EPOLLOUT.rawValue : 0))
        }
        if !wantWritable {
            if output.capacity > 64 * 1024 { output = [] }
            if isClosing { finishClosing() }
        }
    }

    /// Sends what is left, then half-closes and waits a moment for the peer to close, so the
    /// last answer is not lost to a reset caused by unread input.
    private func beginClosing() {
        guard !isClosing, !isClosed else { return }
        isClosing = true
        requestTimer?.cancel()
        idleTimer?.cancel()
        if outputStart == output.count { finishClosing() }
    }

    private func finishClosing() {
        guard !isHalfClosed else { return }
        isHalfClosed = true
        shutdown(fd, Int32(SHUT_WR))
        idleTimer = loop.schedule(at: .now + .seconds(1)) { [self] in close() }
    }

    /// Stops taking requests: an idle connection closes now, a busy one after its answers.
    func beginDraining() {
        closeWhenAnswered = true
        if !answering && waiting.isEmpty { beginClosing() }
    }

    func close() {
        loop.assertInLoop()
        guard !isClosed else { return }
        isClosed = true
        requestTimer?.cancel()
        idleTimer?.cancel()
        loop.unregister(fd)
        Glibc.close(fd)
        output = []
        core.connectionClosed()
    }
}

/// A connection the server drains and closes on shutdown, whatever its protocol.
protocol ServedConnection: AnyObject {
    /// Stops taking new calls; in-flight ones finish.
    func beginDraining()
    /// Closes now, cancelling what is in flight.
    func close()
}
