/// One call made by a `GRPCClient`; loop thread only once started.
final class ClientCall: @unchecked Sendable {
    enum Sink {
        case unary(CheckedContinuation<UnaryResponse, any Error>)
        case stream(AsyncThrowingStream<[UInt8], any Error>.Continuation, ResponseStreamState)
    }

    let path: String
    let metadata: Metadata
    let timeout: Duration?
    let requestEncoding: CompressionAlgorithm?
    /// The framed request bytes not yet handed to nghttp2 (from `sentOffset`); a streaming-request
    /// call appends each message as it is sent.
    var requestBytes: [UInt8]
    let maxReceive: Int
    var sink: Sink?
    /// Whether the call sends a stream of requests, ended by `halfClose`.
    let streamsRequests: Bool
    /// Whether the last request byte has been queued (always, for one-request calls).
    var requestsFinished: Bool
    /// Senders waiting for their message to reach nghttp2: the offset in `requestBytes` at
    /// which each message ends.
    var waitingSenders: [(end: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    /// The connection the call's stream is on, once started.
    weak var connection: ClientConnection?
    /// The status the call ended with, for a send after the end.
    var finalStatus: Status?

    var isDone = false
    var streamID: Int32 = -1
    var sentOffset = 0
    var timer: LoopTimer?
    var deframer: MessageDeframer

    // Response headers.
    var httpStatus: Int?
    var contentType: String?
    var encodingName: String?
    var responseEncoding: CompressionAlgorithm?
    var grpcStatus: Int?
    var grpcMessage: String?
    var headerMetadata = Metadata()
    var trailerMetadata = Metadata()
    var initialDelivered = false
    var messages: [[UInt8]] = []

    // Inbound flow control of streaming calls: DATA is acknowledged (WINDOW_UPDATE) only while
    // the messages the consumer has not taken stay under a bound.
    /// Wire sizes of messages delivered but not yet taken by the consumer.
    var unconsumedSizes: [Int] = []
    var unconsumedHead = 0
    var unconsumedBytes = 0
    /// Received DATA bytes not yet acknowledged to the peer.
    var withheldBytes = 0

    var isStreaming: Bool {
        if case .stream = sink { return true }
        return false
    }

    init(
        path: String, metadata: Metadata, timeout: Duration?, requestEncoding: CompressionAlgorithm?,
        requestBytes: [UInt8], maxReceive: Int, streamsRequests: Bool = false
    ) {
        self.path = path
        self.metadata = metadata
        self.timeout = timeout
        self.requestEncoding = requestEncoding
        self.requestBytes = requestBytes
        self.maxReceive = maxReceive
        self.streamsRequests = streamsRequests
        requestsFinished = !streamsRequests
        deframer = MessageDeframer(maxMessageBytes: maxReceive)
    }

    /// Passes the initial metadata on (streaming calls).
    func deliverInitial() {
        guard !initialDelivered else { return }
        initialDelivered = true
        if case .stream(_, let state) = sink { state.setInitial(.success(headerMetadata)) }
    }

    /// Passes one decoded message on.
    func deliver(_ message: [UInt8], wireSize: Int) {
        switch sink {
        case .unary:
            messages.append(message)
        case .stream(let continuation, _):
            unconsumedSizes.append(wireSize)
            unconsumedBytes += wireSize
            continuation.yield(message)
        case nil:
            break
        }
    }

    /// Ends the call with a status; later calls do nothing.
    func complete(_ status: Status, initial: Metadata, trailing: Metadata) {
        guard !isDone else { return }
        isDone = true
        finalStatus = status
        let senders = waitingSenders
        waitingSenders = []
        for sender in senders { sender.continuation.resume(throwing: sendError) }
        timer?.cancel()
        timer = nil
        let sink = self.sink
        self.sink = nil
        switch sink {
        case .unary(let continuation):
            if status.code != .ok {
                continuation.resume(throwing: RPCError(code: status.code, message: status.message, metadata: trailing))
            } else if messages.count != 1 {
                continuation.resume(
                    throwing: RPCError(
                        code: .internalError,
                        message: "a unary call must receive exactly one response, received \(messages.count)",
                        metadata: trailing))
            } else {
                continuation.resume(
                    returning: UnaryResponse(message: messages[0], initialMetadata: initial, trailingMetadata: trailing)
                )
            }
        case .stream(let continuation, let state):
            let error = RPCError(code: status.code, message: status.message, metadata: trailing)
            state.setInitial(status.code == .ok || initialDelivered ? .success(initial) : .failure(error))
            state.setOutcome(.init(status: status, trailing: trailing))
            if status.code == .ok {
                continuation.finish()
            } else {
                continuation.finish(throwing: error)
            }
        case nil:
            break
        }
        messages = []
    }

    /// Forgets `count` messages the consumer took.
    ///
    /// - Returns: The wire bytes they occupied.
    func consumed(_ count: Int) -> Int {
        var bytes = 0
        for _ in 0..<count where unconsumedHead < unconsumedSizes.count {
            bytes += unconsumedSizes[unconsumedHead]
            unconsumedHead += 1
        }
        if unconsumedHead == unconsumedSizes.count {
            unconsumedSizes.removeAll(keepingCapacity: true)
            unconsumedHead = 0
        }
        unconsumedBytes -= bytes
        return bytes
    }

    /// What a send after the end of the call throws: its status, or that it has ended.
    var sendError: RPCError {
        if let finalStatus, finalStatus.code != .ok {
            return RPCError(code: finalStatus.code, message: finalStatus.message)
        }
        return RPCError(code: .failedPrecondition, message: "the call has ended")
    }

    /// Resumes the senders whose message nghttp2 has taken whole; forgets sent bytes once all are.
    func requestBytesTaken() {
        while let first = waitingSenders.first, first.end <= sentOffset {
            waitingSenders.removeFirst()
            first.continuation.resume()
        }
        if streamsRequests && sentOffset == requestBytes.count {
            requestBytes.removeAll(keepingCapacity: true)
            sentOffset = 0
        }
    }

    func fail(_ error: RPCError) {
        complete(error.status, initial: headerMetadata, trailing: error.metadata)
    }
}
