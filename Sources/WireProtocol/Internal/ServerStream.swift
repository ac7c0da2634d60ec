/// One request stream on a server connection: its state machine and the resources the
/// connection performs its actions with (the deadline timer, the handler's task and writer).
///
/// Loop thread only; the handler's side reaches it through a `LoopBound`.
final class ServerStream {
    let id: Int32
    /// When the request HEADERS began, for the call's duration.
    let startedAt: ContinuousClock.Instant
    var machine = ServerStreamStateMachine()
    var timer: LoopTimer?
    var task: Task<Void, Never>?
    var writer: ServerResponseWriter?
    /// Where the request messages of a streaming-request call go to its handler.
    var requests: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    /// For a request of one message: the window to open once the request is large (see
    /// `ServerConnection.openWindowOfLargeRequest`), `nil` when there is none to open (a
    /// streaming request, or once opened).
    var windowToOpen: Int32?
    /// The request bytes received so far.
    var receivedBytes = 0

    init(id: Int32, startedAt: ContinuousClock.Instant) {
        self.id = id
        self.startedAt = startedAt
    }

    /// Stops the deadline timer and lets go of the writer, the task and the request stream.
    ///
    /// The writer holds its stream (and the connection), so without this every call that ran a
    /// handler would keep its stream, writer, task and connection alive forever (found by the
    /// server-connection fuzzer; see `FuzzRegressionTests`).
    func release() {
        timer?.cancel()
        timer = nil
        writer = nil
        task = nil
        requests?.finish()
        requests = nil
    }
}
