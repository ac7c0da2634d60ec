internal import Glibc

/// A gRPC client on one HTTP/2 connection, shared by many concurrent calls.
///
/// The connection is opened on the first call and reopened lazily after it drops or the server
/// sends GOAWAY. All clients share one event-loop thread.
public final class GRPCClient: Sendable {
    /// Where the server listens.
    public enum Target: Sendable, Hashable {
        /// A TCP host (IP literal or name) and port.
        case tcp(host: String, port: Int)
        /// A Unix-domain socket path.
        case unix(path: String)
    }

    let core: ClientCore

    /// Creates a client; no connection is made until the first call.
    public init(target: Target, configuration: ClientConfiguration = .init()) {
        _ = Socket.ignoreSIGPIPE
        core = ClientCore(target: target, configuration: configuration, loop: ClientCore.sharedLoop)
    }

    deinit {
        // The connection lives on the shared loop; do not leave it behind.
        let core = self.core
        core.loop.execute { core.close() }
    }

    /// Makes a unary call.
    ///
    /// Cancelling the calling task cancels the call (RST_STREAM CANCEL).
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - request: The serialized request.
    ///   - metadata: Custom request metadata.
    ///   - options: Timeout and compression.
    /// - Returns: The response and the server's metadata.
    /// - Throws: `RPCError` for any status other than OK.
    public func unary(path: String, request: [UInt8], metadata: Metadata = [:], options: CallOptions = .init())
        async throws -> UnaryResponse
    {
        let call = try makeCall(path: path, request: request, metadata: metadata, options: options)
        let core = self.core
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.sink = .unary(continuation)
                core.loop.execute { core.start(call) }
            }
        } onCancel: {
            core.loop.execute { core.cancel(call) }
        }
    }

    /// Makes a server-streaming call.
    ///
    /// The call starts at once; its messages, and its status, arrive through the returned stream.
    ///
    /// - Returns: The responses; iterating throws `RPCError` for a status other than OK.
    public func serverStreaming(
        path: String, request: [UInt8], metadata: Metadata = [:], options: CallOptions = .init()
    ) async throws -> ResponseStream {
        let call = try makeCall(path: path, request: request, metadata: metadata, options: options)
        return start(streaming: call)
    }

    /// Makes a bidirectional-streaming call.
    ///
    /// The call starts at once. Send requests through `call.requests` and end them with
    /// `finish()`; responses, and the status, arrive through `call.responses` meanwhile.
    ///
    /// - Returns: The call's two halves; iterating the responses throws `RPCError` for a status
    ///   other than OK.
    public func bidirectionalStreaming(
        path: String, metadata: Metadata = [:], options: CallOptions = .init()
    ) -> StreamingCall {
        let compression = options.compression ?? core.configuration.requestCompression
        let call = newCall(path: path, metadata: metadata, options: options, requestBytes: [], streamsRequests: true)
        let responses = start(streaming: call)
        return StreamingCall(
            requests: RequestSender(call: call, core: core, compression: compression), responses: responses)
    }

    /// Makes a client-streaming call: `send` sends the requests, then the call waits for the one
    /// response.
    ///
    /// The requests are ended (half-close) when `send` returns; if it throws, the call is
    /// cancelled and its error rethrown. Cancelling the calling task cancels the call.
    ///
    /// - Returns: The response and the server's metadata.
    /// - Throws: `RPCError` for any status other than OK.
    public func clientStreaming(
        path: String, metadata: Metadata = [:], options: CallOptions = .init(),
        send: (RequestSender) async throws -> Void
    ) async throws -> UnaryResponse {
        let call = bidirectionalStreaming(path: path, metadata: metadata, options: options)
        do {
            try await send(call.requests)
        } catch {
            call.responses.cancel()
            throw error
        }
        call.requests.finish()
        var messages: [[UInt8]] = []
        for try await message in call.responses { messages.append(message) }
        guard messages.count == 1 else {
            throw RPCError(
                code: .internalError,
                message: "a client-streaming call must receive exactly one response, received \(messages.count)",
                metadata: call.responses.trailingMetadata ?? [:])
        }
        return UnaryResponse(
            message: messages[0], initialMetadata: try await call.responses.initialMetadata,
            trailingMetadata: call.responses.trailingMetadata ?? [:])
    }

    /// Closes the connection; calls still in flight fail with UNAVAILABLE.
    public func close() async {
        let core = self.core
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            core.loop.execute {
                core.close()
                continuation.resume()
            }
        }
    }

    /// A call with one request message, framed (and compressed) now.
    private func makeCall(path: String, request: [UInt8], metadata: Metadata, options: CallOptions) throws -> ClientCall
    {
        let compression = options.compression ?? core.configuration.requestCompression
        let framed: [UInt8]
        do {
            framed = try Envelope.frame(request, compression: compression)
        } catch {
            throw RPCError(code: .internalError, message: "compression failed", cause: error)
        }
        return newCall(path: path, metadata: metadata, options: options, requestBytes: framed, streamsRequests: false)
    }

    /// A call with this client's defaults where `options` leave them open.
    private func newCall(
        path: String, metadata: Metadata, options: CallOptions, requestBytes: [UInt8], streamsRequests: Bool
    ) -> ClientCall {
        let configuration = core.configuration
        let compression = options.compression ?? configuration.requestCompression
        return ClientCall(
            path: path, metadata: metadata, timeout: options.timeout,
            requestEncoding: compression == .identity ? nil : compression, requestBytes: requestBytes,
            maxReceive: options.maxReceiveMessageBytes ?? configuration.maxReceiveMessageBytes,
            streamsRequests: streamsRequests)
    }

    /// Starts `call` with its responses going to the returned stream; cancelling the stream's
    /// iteration cancels the call.
    private func start(streaming call: ClientCall) -> ResponseStream {
        let core = self.core
        let state = ResponseStreamState()
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        call.sink = .stream(continuation, state)
        let cancel: @Sendable () -> Void = { core.loop.execute { core.cancel(call) } }
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancel() }
        }
        core.loop.execute { core.start(call) }
        return ResponseStream(messages: stream, state: state, client: self, cancel: cancel)
    }
}

/// The client's loop-confined state: its current connection.
final class ClientCore: @unchecked Sendable {
    /// The event loop every client uses.
    static let sharedLoop: EventLoop = {
        let loop = EventLoop(name: "wire-client")
        loop.start()
        return loop
    }()

    let target: GRPCClient.Target
    let configuration: ClientConfiguration
    let loop: EventLoop
    let acceptEncodingHeader: String
    private var connection: ClientConnection?
    private var isClosed = false

    init(target: GRPCClient.Target, configuration: ClientConfiguration, loop: EventLoop) {
        self.target = target
        self.configuration = configuration
        self.loop = loop
        var encodings = configuration.acceptedCompression
        if !encodings.contains(.identity) { encodings.insert(.identity, at: 0) }
        acceptEncodingHeader = encodings.map(\.name).joined(separator: ",")
    }

    func start(_ call: ClientCall) {
        guard !call.isDone else { return }
        guard !isClosed else {
            call.fail(RPCError(code: .unavailable, message: "the client is closed"))
            return
        }
        if connection == nil || !connection!.isUsable {
            do {
                connection = try connect()
            } catch {
                call.fail(RPCError(code: .unavailable, message: "cannot connect: \(error.message)", cause: error))
                return
            }
        }
        connection!.start(call)
    }

    /// Queues a request message of a streaming-request call.
    func send(_ call: ClientCall, _ framed: [UInt8], sent: CheckedContinuation<Void, any Error>) {
        guard let connection = call.connection, !call.isDone else {
            sent.resume(throwing: call.isDone ? call.sendError : RPCError(code: .unavailable, message: "not connected"))
            return
        }
        connection.send(call, framed, sent: sent)
    }

    func halfClose(_ call: ClientCall) {
        call.connection?.halfClose(call)
    }

    func cancel(_ call: ClientCall) {
        guard !call.isDone else { return }
        let error = RPCError(code: .cancelled, message: "the call was cancelled")
        if let connection, call.streamID > 0 {
            connection.cancel(call, error)
        } else {
            call.fail(error)
        }
    }

    func close() {
        isClosed = true
        connection?.shutdown()
        connection = nil
    }

    func connectionClosed(_ closed: ClientConnection) {
        if connection === closed { connection = nil }
    }

    private func connect() throws(TransportError) -> ClientConnection {
        switch target {
        case .tcp(let host, let port):
            let addresses = try Socket.resolve(host: host, port: port, passive: false)
            guard let (family, address) = addresses.first else {
                throw TransportError(code: .badAddress, message: "no address for \(host)")
            }
            let result: Result<(fd: Int32, inProgress: Bool), TransportError> = address.withUnsafeBytes { raw in
                Result { () throws(TransportError) in try Socket.connect(family: family, address: raw) }
            }
            let (fd, inProgress) = try result.get()
            let authority = configuration.authority ?? (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
            return ClientConnection(fd: fd, connecting: inProgress, loop: loop, core: self, authority: authority)
        case .unix(let path):
            var address = try Socket.unixAddress(path)
            let result: Result<(fd: Int32, inProgress: Bool), TransportError> = withUnsafeBytes(of: &address) { raw in
                Result { () throws(TransportError) in try Socket.connect(family: AF_UNIX, address: raw) }
            }
            let (fd, inProgress) = try result.get()
            return ClientConnection(
                fd: fd, connecting: inProgress, loop: loop, core: self,
                authority: configuration.authority ?? "localhost")
        }
    }
}
