/// What the server knows about one finished call, handed to `ServerConfiguration.callObserver`.
public struct CallRecord: Sendable {
    /// The request's `:path`, such as `/grpc.health.v1.Health/Check`.
    public var path: String
    /// The status the call ended with: the handler's, an early rejection's, or CANCELLED when
    /// the client reset the stream or the connection closed first.
    public var status: Status
    /// From the first request HEADERS frame to the status being submitted.
    public var duration: Duration
    /// The request metadata (custom headers such as `x-request-id`).
    public var requestMetadata: Metadata
    /// The peer address, as in `ServerContext.peer`.
    public var peer: String

    /// Creates a record.
    public init(path: String, status: Status, duration: Duration, requestMetadata: Metadata, peer: String) {
        self.path = path
        self.status = status
        self.duration = duration
        self.requestMetadata = requestMetadata
        self.peer = peer
    }
}

/// Called once per gRPC call when it ends, on the connection's event-loop thread: it must be
/// quick and must not block (hand slow work elsewhere).
public typealias CallObserver = @Sendable (CallRecord) -> Void
