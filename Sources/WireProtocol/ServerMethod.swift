/// A method a `GRPCServer` serves: its path, its kind, its receive limit and its handler.
public struct ServerMethod: Sendable {
    /// The shapes of call supported.
    public enum Kind: Sendable, Hashable {
        /// One request, one response.
        case unary
        /// One request, any number of responses.
        case serverStreaming
        /// Any number of requests, one response.
        case clientStreaming
        /// Any number of requests and of responses, interleaved as the handler likes.
        case bidirectionalStreaming

        /// Whether the requests reach the handler as a stream (``RequestStream``) while they
        /// arrive, rather than as one message once the request has ended.
        public var streamsRequests: Bool { self == .clientStreaming || self == .bidirectionalStreaming }
    }

    /// Which thread runs a method's handler, and whether it may block: stated where the method
    /// is registered, honoured by the server for gRPC, Connect and gRPC-Web calls alike.
    public enum Execution: Sendable, Hashable {
        /// On the connection's event loop when the server starts handlers inline
        /// (`ServerConfiguration.startHandlersInline`) and the request is small (64 KiB at most):
        /// a synchronous handler answers there, an async one runs there until it first
        /// suspends; in a task on the cooperative pool otherwise. For handlers that take
        /// microseconds and never block: every other connection of that loop waits meanwhile.
        /// A streaming-request handler waits for the network, so it always runs in a task.
        case onLoop
        /// In a task on Swift's cooperative pool, never on an event loop: for handlers that
        /// compute for longer or await other work, and never block a thread.
        case offLoop
        /// On a thread of the server's blocking pool (`ServerConfiguration.maxBlockingThreads`),
        /// never on an event loop or the cooperative pool, whose threads every task shares: for
        /// handlers that block (disk or file I/O, fsync, a C library's blocking call, a lock held
        /// by slow work). An async handler's awaits come back to that pool.
        case mayBlock
    }

    /// Handles one call.
    ///
    /// Returning normally ends the call with OK (a unary handler must have written exactly one
    /// message, else the client gets INTERNAL). Throwing `RPCError` sends its status, message and
    /// metadata; any other error sends UNKNOWN. The handler's task is cancelled when the client
    /// cancels, the connection drops, or the deadline passes.
    ///
    /// The handler is `nonisolated(nonsending)`: started inline (see
    /// `ServerConfiguration.startHandlersInline`), it runs on the connection's event-loop thread
    /// until its first real suspension, so a handler that never suspends answers without any
    /// thread hop.
    public typealias Handler =
        nonisolated(nonsending) @Sendable (_ request: [UInt8], _ context: ServerContext, _ writer: any ResponseWriter)
        async throws -> Void

    /// Handles one client- or bidirectional-streaming call.
    ///
    /// The handler starts as soon as the request HEADERS are in, before any message: `requests`
    /// yields each request message as it arrives, in order, and ends when the client half-closes.
    /// Responses may be written while requests still arrive. Returning (or throwing) ends the call
    /// whatever the client still sends; later request messages are discarded. A client-streaming
    /// handler must write exactly one response.
    ///
    /// It always runs in a task, never inline on the event loop: it waits for the network.
    public typealias StreamingHandler =
        @Sendable (_ requests: RequestStream, _ context: ServerContext, _ writer: any ResponseWriter)
        async throws -> Void

    /// The HTTP/2 `:path`, "/package.Service/Method".
    public var path: String
    /// Unary or server streaming.
    public var kind: Kind
    /// The largest request message accepted, checked on the length prefix and again after
    /// decompression.
    public var maxRequestBytes: Int
    /// The handler of a unary or server-streaming method; for a streaming-request method, one
    /// that answers UNIMPLEMENTED (such a method is called through `streamingHandler`).
    public var handler: Handler
    /// The handler of a client- or bidirectional-streaming method; `nil` for the other kinds.
    public private(set) var streamingHandler: StreamingHandler?
    /// The same handler as a plain function, for a unary method made with
    /// ``init(unaryPath:maxRequestBytes:synchronous:)``; `nil` otherwise.
    public private(set) var synchronousHandler: SynchronousUnaryHandler?
    /// The method's messages in proto3 JSON, for Connect and gRPC-Web clients that send JSON
    /// (browsers, `curl`); `nil`: binary protobuf only.
    public var json: MessageJSONCoding?
    /// Whether Connect clients may call it with GET (the message in the query): for methods
    /// without side effects, whose answers a browser or proxy may cache.
    public var allowsGET = false
    /// Which thread runs the handler, and whether it may block.
    public var execution: Execution

    /// Handles one unary call without suspending: takes the request, returns the response message.
    ///
    /// With `ServerConfiguration.startHandlersInline` the server calls it straight from the
    /// connection's event loop, with no task and no writer: the cheapest way to answer a call,
    /// and meant for handlers that take microseconds (every other connection of that loop waits).
    /// Throwing `RPCError` sends its status, message and metadata as trailers.
    public typealias SynchronousUnaryHandler =
        @Sendable (_ request: [UInt8], _ context: ServerContext) throws(RPCError) -> [UInt8]

    /// Creates a method.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - kind: `.unary` or `.serverStreaming`.
    ///   - maxRequestBytes: The largest request message accepted.
    ///   - execution: Which thread runs the handler (see ``Execution``).
    ///   - handler: The handler (see ``Handler``).
    public init(
        path: String, kind: Kind, maxRequestBytes: Int = 4 << 20, execution: Execution = .onLoop,
        handler: @escaping Handler
    ) {
        self.path = path
        self.kind = kind
        self.maxRequestBytes = maxRequestBytes
        self.execution = execution
        self.handler = handler
    }

    /// Creates a client- or bidirectional-streaming method.
    ///
    /// The first label differs from the other initializers' so that a closure literal can never
    /// be taken for the other kind of handler.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - kind: `.clientStreaming` or `.bidirectionalStreaming`.
    ///   - maxRequestBytes: The largest request message accepted.
    ///   - execution: Which thread runs the handler (see ``Execution``; `.onLoop` is taken as
    ///     `.offLoop`, since the handler waits for the network).
    ///   - streamingHandler: The handler (see ``StreamingHandler``).
    public init(
        streamingPath path: String, kind: Kind, maxRequestBytes: Int = 4 << 20, execution: Execution = .offLoop,
        streamingHandler: @escaping StreamingHandler
    ) {
        precondition(kind.streamsRequests, "a method with one request message takes a Handler")
        self.path = path
        self.kind = kind
        self.maxRequestBytes = maxRequestBytes
        self.execution = execution
        handler = { _, context, _ in
            throw RPCError(code: .unimplemented, message: "\(context.path) takes a stream of requests")
        }
        self.streamingHandler = streamingHandler
    }

    /// Creates a unary method answered by a synchronous handler (see ``SynchronousUnaryHandler``).
    ///
    /// Without inline handlers, or with an execution other than `.onLoop`, the server runs it in
    /// a task like any other handler (on the blocking pool for `.mayBlock`).
    public init(
        unaryPath path: String, maxRequestBytes: Int = 4 << 20, execution: Execution = .onLoop,
        synchronous: @escaping SynchronousUnaryHandler
    ) {
        self.path = path
        kind = .unary
        self.maxRequestBytes = maxRequestBytes
        self.execution = execution
        handler = { request, context, writer in try await writer.write(synchronous(request, context)) }
        synchronousHandler = synchronous
    }
}

/// Converts one method's messages between proto3 JSON and the protobuf wire format; made by the
/// module that knows the message types.
public struct MessageJSONCoding: Sendable {
    /// A request in JSON → its wire bytes; throws INVALID_ARGUMENT naming the field.
    public var requestFromJSON: @Sendable ([UInt8]) throws(RPCError) -> [UInt8]
    /// A response's wire bytes → JSON.
    public var responseToJSON: @Sendable ([UInt8]) throws(RPCError) -> [UInt8]

    public init(
        requestFromJSON: @escaping @Sendable ([UInt8]) throws(RPCError) -> [UInt8],
        responseToJSON: @escaping @Sendable ([UInt8]) throws(RPCError) -> [UInt8]
    ) {
        self.requestFromJSON = requestFromJSON
        self.responseToJSON = responseToJSON
    }
}

/// What a handler knows about its call.
public struct ServerContext: Sendable {
    /// The `:path` of the call.
    public let path: String
    /// The client's custom metadata (reserved headers left out; `user-agent` included).
    public let requestMetadata: Metadata
    /// When the client's `grpc-timeout` runs out, if it sent one.
    public let deadline: ContinuousClock.Instant?
    /// The client's address: "ipv4:1.2.3.4:5", "ipv6:[::1]:5" or "unix:/path".
    public let peer: String
    /// The encodings the client listed in `grpc-accept-encoding`.
    public let acceptedCompression: [CompressionAlgorithm]
    /// How the request message was compressed on the wire: `.identity` when its compressed flag
    /// was clear, else the call's `grpc-encoding`.
    public let requestCompression: CompressionAlgorithm

    /// Creates a context; the server makes these, tests of handlers may too.
    public init(
        path: String, requestMetadata: Metadata = [:], deadline: ContinuousClock.Instant? = nil,
        peer: String = "in-process", acceptedCompression: [CompressionAlgorithm] = [.identity],
        requestCompression: CompressionAlgorithm = .identity
    ) {
        self.path = path
        self.requestMetadata = requestMetadata
        self.deadline = deadline
        self.peer = peer
        self.acceptedCompression = acceptedCompression
        self.requestCompression = requestCompression
    }
}

/// Sends a handler's responses.
///
/// Usable from any task. Writes are framed (and compressed) on the calling task and handed to
/// the connection's event loop.
public protocol ResponseWriter: Sendable {
    /// Sets the initial metadata; takes effect only before the first message.
    func setInitialMetadata(_ metadata: Metadata)
    /// Sends one message.
    ///
    /// Suspends while the stream's unsent bytes exceed the high-water mark.
    ///
    /// - Parameters:
    ///   - message: The serialized message.
    ///   - compression: The algorithm for this message; `nil` uses the server default. Ignored
    ///     (the message is sent uncompressed) when the client does not accept it.
    /// - Throws: `RPCError` (CANCELLED or DEADLINE_EXCEEDED) once the call is over.
    nonisolated(nonsending) func write(_ message: [UInt8], compression: CompressionAlgorithm?) async throws
    /// Sets trailing metadata, sent with the status.
    func setTrailingMetadata(_ metadata: Metadata)
}

extension ResponseWriter {
    /// Sends one message with the server's default compression.
    public nonisolated(nonsending) func write(_ message: [UInt8]) async throws {
        try await write(message, compression: nil)
    }
}
