/// A method a `GRPCServer` serves: its path, its kind, its receive limit and its handler.
public struct ServerMethod: Sendable {
    /// The shapes of call supported: one request each.
    public enum Kind: Sendable, Hashable {
        /// One request, one response.
        case unary
        /// One request, any number of responses.
        case serverStreaming
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

    /// The HTTP/2 `:path`, "/package.Service/Method".
    public var path: String
    /// Unary or server streaming.
    public var kind: Kind
    /// The largest request message accepted, checked on the length prefix and again after
    /// decompression.
    public var maxRequestBytes: Int
    /// The handler.
    public var handler: Handler
    /// The same handler as a plain function, for a unary method made with
    /// ``init(unaryPath:maxRequestBytes:synchronous:)``; `nil` otherwise.
    public private(set) var synchronousHandler: SynchronousUnaryHandler?
    /// The method's messages in proto3 JSON, for Connect and gRPC-Web clients that send JSON
    /// (browsers, `curl`); `nil`: binary protobuf only.
    public var json: MessageJSONCoding?
    /// Whether Connect clients may call it with GET (the message in the query): for methods
    /// without side effects, whose answers a browser or proxy may cache.
    public var allowsGET = false

    /// Handles one unary call without suspending: takes the request, returns the response message.
    ///
    /// With `ServerConfiguration.startHandlersInline` the server calls it straight from the
    /// connection's event loop, with no task and no writer: the cheapest way to answer a call,
    /// and meant for handlers that take microseconds (every other connection of that loop waits).
    /// Throwing `RPCError` sends its status, message and metadata as trailers.
    public typealias SynchronousUnaryHandler =
        @Sendable (_ request: [UInt8], _ context: ServerContext) throws(RPCError) -> [UInt8]

    /// Creates a method.
    public init(path: String, kind: Kind, maxRequestBytes: Int = 4 << 20, handler: @escaping Handler) {
        self.path = path
        self.kind = kind
        self.maxRequestBytes = maxRequestBytes
        self.handler = handler
    }

    /// Creates a unary method answered by a synchronous handler (see ``SynchronousUnaryHandler``).
    ///
    /// Without inline handlers the server runs it in a task like any other handler.
    public init(unaryPath path: String, maxRequestBytes: Int = 4 << 20, synchronous: @escaping SynchronousUnaryHandler)
    {
        self.path = path
        kind = .unary
        self.maxRequestBytes = maxRequestBytes
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
