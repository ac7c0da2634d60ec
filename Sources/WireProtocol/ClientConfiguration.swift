/// How a `GRPCClient` sends and receives.
public struct ClientConfiguration: Sendable {
    /// The compression applied to requests unless a call chooses; sent only if the server
    /// accepts it is not known in advance, so the default is identity.
    public var requestCompression: CompressionAlgorithm
    /// The encodings offered in `grpc-accept-encoding` and accepted on responses.
    public var acceptedCompression: [CompressionAlgorithm]
    /// The largest response message accepted, before and after decompression.
    public var maxReceiveMessageBytes: Int
    /// The `:authority` sent; defaults to "host:port", or "localhost" for a Unix socket.
    public var authority: String?
    /// The `user-agent` sent.
    public var userAgent: String
    /// Bytes of received messages a server-streaming call buffers for a consumer that has not
    /// taken them; past this the client stops granting the server flow-control window.
    public var streamBufferBytes: Int

    /// Creates a configuration.
    public init(
        requestCompression: CompressionAlgorithm = .identity,
        acceptedCompression: [CompressionAlgorithm] = [.identity, .gzip, .deflate],
        maxReceiveMessageBytes: Int = 4 << 20,
        authority: String? = nil,
        userAgent: String = "grpc-swift-wire/1.0",
        streamBufferBytes: Int = 1 << 20
    ) {
        self.requestCompression = requestCompression
        self.acceptedCompression = acceptedCompression
        self.maxReceiveMessageBytes = maxReceiveMessageBytes
        self.authority = authority
        self.userAgent = userAgent
        self.streamBufferBytes = streamBufferBytes
    }
}

/// Per-call options.
public struct CallOptions: Sendable {
    /// The time the call may take; sent as `grpc-timeout` and enforced locally, ending the call
    /// with DEADLINE_EXCEEDED.
    public var timeout: Duration?
    /// The request compression for this call; `nil` uses the client's configuration.
    public var compression: CompressionAlgorithm?
    /// Overrides the client's receive limit for this call.
    public var maxReceiveMessageBytes: Int?

    /// Creates options.
    public init(timeout: Duration? = nil, compression: CompressionAlgorithm? = nil, maxReceiveMessageBytes: Int? = nil)
    {
        self.timeout = timeout
        self.compression = compression
        self.maxReceiveMessageBytes = maxReceiveMessageBytes
    }
}

/// The result of a successful unary call.
public struct UnaryResponse: Sendable {
    /// The response message.
    public var message: [UInt8]
    /// The server's initial metadata.
    public var initialMetadata: Metadata
    /// The server's trailing metadata.
    public var trailingMetadata: Metadata
}
