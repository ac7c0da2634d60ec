/// One request stream on a server connection; loop thread only (except `writer`).
final class ServerStream: @unchecked Sendable {
    enum Phase {
        /// Headers or request body still arriving.
        case receiving
        /// The call was answered early (an error or an HTTP status); further input is ignored.
        case rejected
        /// The handler runs.
        case running
        /// The status has been submitted.
        case finished
    }

    let id: Int32
    /// When the request HEADERS began, for the call's duration.
    var startedAt = ContinuousClock.Instant.now
    var phase = Phase.receiving
    var headersComplete = false
    var requestEnded = false

    // Request headers.
    var headerBytes = 0
    /// Whether `:method` was POST; `nil` before it arrives.
    var isPost: Bool?
    /// The method served at `:path`, found from its bytes.
    var target: ServerMethod?
    /// A `:path` no method is served at, kept for the error and the call log.
    var unknownPath: String?
    /// Whether `content-type` is gRPC's; `nil` before it arrives.
    var hasGRPCContentType: Bool?
    var encodingName: String?
    var acceptEncoding: String?
    var timeoutText: String?
    var metadata = Metadata()

    /// The `:path` of the call, if it came.
    var path: String? { target?.path ?? unknownPath }

    // Request body.
    var method: ServerMethod?
    var deframer = MessageDeframer(maxMessageBytes: 0)
    var requestEncoding: CompressionAlgorithm?
    var request: [UInt8]?
    /// Whether the request message arrived with its compressed flag set.
    var requestWasCompressed = false
    var requestCount = 0
    /// Request bytes counted against the connection's buffer budget.
    var bufferedBytes = 0
    var deadline: ContinuousClock.Instant?
    var timer: LoopTimer?

    // Response.
    var task: Task<Void, Never>?
    var writer: ServerResponseWriter?
    var headersSent = false
    var pending: [[UInt8]] = []
    var pendingOffset = 0
    var trailers: HeaderBlock?
    var dataDeferred = false
    /// Reset the stream (NO_ERROR) once our END_STREAM is out, because the client is still sending.
    var resetAfterEnd = false

    init(id: Int32) { self.id = id }

    /// Lets go of the writer and the task once nghttp2 has closed the stream.
    ///
    /// The writer holds its stream, so without this every call would leave the pair (and its
    /// connection) behind: a few kilobytes per call.
    func detach() {
        writer = nil
        task = nil
        pending = []
        trailers = nil
    }

    /// Copies queued response bytes into `buffer`.
    func copyPending(into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> Int {
        var copied = 0
        while copied < length, !pending.isEmpty {
            let chunk = pending[0]
            let take = min(chunk.count - pendingOffset, length - copied)
            chunk.withUnsafeBufferPointer { source in
                (buffer + copied).update(from: source.baseAddress! + pendingOffset, count: take)
            }
            copied += take
            pendingOffset += take
            if pendingOffset == chunk.count {
                pending.removeFirst()
                pendingOffset = 0
            }
        }
        return copied
    }
}
