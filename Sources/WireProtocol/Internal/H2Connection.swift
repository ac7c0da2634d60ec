internal import Base64Coding
internal import CNghttp2
internal import Glibc

/// Header fields to submit to nghttp2, kept in one byte buffer so building them costs one array;
/// or a shared `FixedHeaders`, which costs nothing.
struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var fields: [(nameStart: Int, nameCount: Int, valueCount: Int)] = []
    private var fixed: FixedHeaders?

    init() {
        bytes.reserveCapacity(256)
    }

    /// A block of pre-encoded fields; adding to it copies them first.
    init(_ fixed: FixedHeaders) {
        self.fixed = fixed
    }

    /// Turns a fixed block into an ordinary one before it grows.
    private mutating func copyFixed() {
        guard let fixed else { return }
        self.fixed = nil
        bytes.reserveCapacity(256)
        for (name, value) in fixed.pairs { add(name, value) }
    }

    mutating func add(_ name: String, _ value: String) {
        copyFixed()
        let start = bytes.count
        bytes.append(contentsOf: name.utf8)
        let nameCount = bytes.count - start
        bytes.append(contentsOf: value.utf8)
        fields.append((start, nameCount, bytes.count - start - nameCount))
    }

    mutating func add(_ name: String, bytes value: [UInt8]) {
        copyFixed()
        let start = bytes.count
        bytes.append(contentsOf: name.utf8)
        let nameCount = bytes.count - start
        bytes.append(contentsOf: value)
        fields.append((start, nameCount, value.count))
    }

    /// Adds user metadata, skipping reserved names and base64-encoding `-bin` values.
    mutating func add(_ metadata: Metadata) {
        if metadata.isEmpty { return }
        for entry in metadata where !Metadata.isReserved(entry.key) {
            if entry.key.hasSuffix("-bin") {
                add(entry.key, Base64.encode(entry.value.bytes, padded: false))
            } else if case .string(let s) = entry.value, s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                add(entry.key, s)
            }
        }
    }

    /// Calls `body` with an `nghttp2_nv` array pointing into this block.
    func withNV<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if let fixed { return body(fixed.fields.baseAddress!, fixed.count) }
        return bytes.withUnsafeBufferPointer { base in
            // nghttp2_nv's pointers are mutable only for C's sake; nghttp2 copies and never writes.
            let start = UnsafeMutablePointer(mutating: base.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            var nv = [nghttp2_nv]()
            nv.reserveCapacity(fields.count)
            for field in fields {
                let name = start + field.nameStart
                nv.append(
                    nghttp2_nv(
                        name: name, value: name + field.nameCount, namelen: field.nameCount,
                        valuelen: field.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return nv.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}

/// The nghttp2 callbacks shared by every session; they dispatch to the `H2Connection` in
/// `user_data`.
nonisolated(unsafe) let sharedCallbacks: OpaquePointer = {
    var callbacks: OpaquePointer?
    nghttp2_session_callbacks_new(&callbacks)
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
        H2Connection.from(user).onBeginHeaders(frame!)
    }
    nghttp2_session_callbacks_set_on_header_callback(callbacks) {
        _, frame, name, nameLength, value, valueLength, _, user in
        H2Connection.from(user).onHeader(
            frame!, name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
        H2Connection.from(user).onFrameReceived(frame!)
    }
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
        H2Connection.from(user).onFrameSent(frame!)
    }
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, flags, streamID, data, length, user in
        H2Connection.from(user).onData(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
    }
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
        H2Connection.from(user).onStreamClose(streamID: streamID, errorCode: errorCode)
    }
    return callbacks!
}()

/// The data-provider read callback shared by every session.
let sharedReadCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
    H2Connection.from(user).readData(streamID: streamID, into: buffer!, length: length, flags: flags!)
}

/// Frame-type and flag constants as the raw bytes nghttp2 frames carry.
enum H2 {
    static let data = UInt8(NGHTTP2_DATA.rawValue)
    static let headers = UInt8(NGHTTP2_HEADERS.rawValue)
    static let rstStream = UInt8(NGHTTP2_RST_STREAM.rawValue)
    static let ping = UInt8(NGHTTP2_PING.rawValue)
    static let goaway = UInt8(NGHTTP2_GOAWAY.rawValue)
    static let settings = UInt8(NGHTTP2_SETTINGS.rawValue)
    static let endStream = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)
    static let ack = UInt8(NGHTTP2_FLAG_ACK.rawValue)
    static let deferred = Int(NGHTTP2_ERR_DEFERRED.rawValue)
    static let temporalFailure = Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    static let callbackFailure = Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    static let eof = UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
    static let noEndStream = UInt32(NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue)
}

/// A non-blocking socket carrying one nghttp2 session, driven by one event loop.
///
/// Subclasses implement the callbacks. Output produced by nghttp2 is gathered into one buffer
/// and written once per loop iteration.
class H2Connection: EventHandler, @unchecked Sendable {
    let fd: Int32
    let loop: EventLoop
    var session: OpaquePointer?
    var isDirty = false
    /// When bytes last arrived; for keepalive.
    var lastReadAt = ContinuousClock.now
    private(set) var isClosed = false
    private var output: [UInt8] = []
    private var outputStart = 0
    private var watchingWritable = false
    /// Whether the socket may be written; false while a client connect is in progress.
    var isWritable = true
    /// Stops pulling from nghttp2 while this many unsent bytes are buffered.
    let outputHighWater = 256 * 1024

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
    }

    static func from(_ user: UnsafeMutableRawPointer?) -> H2Connection {
        Unmanaged<H2Connection>.fromOpaque(user!).takeUnretainedValue()
    }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: Callbacks, overridden by subclasses.

    func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onHeader(
        _ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    )
        -> Int32
    { 0 }
    func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 { 0 }
    func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 { 0 }
    func readData(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    )
        -> Int
    { H2.deferred }
    /// Called once when the socket is closed, after the session is gone.
    func didClose() {}

    /// What to do with bytes just read, before nghttp2 sees them.
    enum Interception {
        /// Feed them to nghttp2.
        case pass
        /// Keep them back for now (read on).
        case hold
        /// Feed these instead (what was held back, and these bytes).
        case feed([UInt8])
        /// The socket now belongs to another handler; stop.
        case handedOver
    }

    /// Sees received bytes before nghttp2 does; the server overrides it to tell HTTP/1.1 from
    /// HTTP/2 by the first bytes.
    func intercept(_ bytes: UnsafeBufferPointer<UInt8>) -> Interception { .pass }

    /// Lets go of the socket without closing it, for another handler to take it over: the
    /// session is deleted and nothing more is read or written here.
    func detach() {
        loop.assertInLoop()
        guard !isClosed else { return }
        isClosed = true
        loop.unregister(fd)
        if let session { nghttp2_session_del(session) }
        session = nil
        output = []
    }

    // MARK: I/O

    func handleEvent(_ events: UInt32) {
        loop.assertInLoop()
        if events & EPOLLOUT.rawValue != 0 { writableEvent() }
        if isClosed { return }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readAvailable()
        }
    }

    /// Called when the socket becomes writable; clients override to finish a connect.
    func writableEvent() {
        loop.markDirty(self)
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        if isLingering {
            // Discard whatever the peer still sends until it closes, so our GOAWAY is not lost
            // to a TCP reset caused by unread data.
            while true {
                let n = recv(fd, buffer.baseAddress, buffer.count, 0)
                if n > 0 { continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                close()
                return
            }
        }
        while !isClosed {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 {
                lastReadAt = .now
                let received = UnsafeMutableBufferPointer(
                    start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)
                switch intercept(UnsafeBufferPointer(received)) {
                case .pass:
                    if !receive(received.baseAddress!, count: n) { return }
                case .hold:
                    break
                case .feed(var bytes):
                    let fed = bytes.withUnsafeMutableBufferPointer { receive($0.baseAddress!, count: $0.count) }
                    if !fed { return }
                case .handedOver:
                    return
                }
                if n < buffer.count { break }
            } else if n == 0 {
                close()
                return
            } else {
                let err = errno
                if err == EINTR { continue }
                if err == EAGAIN || err == EWOULDBLOCK { break }
                close()
                return
            }
        }
        loop.markDirty(self)
    }

    /// Set when a call's answer is ready to go out; lets `receive` send it before reading on.
    var answersReady = false

    /// Bytes handed to nghttp2 at a time at first; see `receive`.
    static let receiveSlice = 256

    /// The most bytes handed to nghttp2 at a time, once slices have answered nothing.
    static let largestReceiveSlice = 64 << 10

    /// Slices in a row that finish no answer before the next ones grow: a burst of small calls
    /// answers every slice or two and keeps them small. (Growing from the first quiet slice,
    /// Health calls multiplexed 32 at a time ran at 1.27 times gRPC C++'s rate in one run of
    /// `bench/rpc/run`, against 1.66–1.89 for slices that stay small or grow after eight.)
    static let quietSlicesBeforeGrowing = 8

    /// Feeds received bytes to nghttp2 a slice at a time, writing the answers finished so far
    /// between slices.
    ///
    /// A client with many calls in flight sends a burst of requests in one segment. Answering all
    /// of them in one write at the end would leave the client idle while the server works, then
    /// the server idle while the client reads; answering each slice's calls as they finish lets
    /// the two overlap. A lone request fits in one slice, so it costs nothing there.
    ///
    /// Past a few slices that finished no answer, each doubles the next: a large request's body
    /// (a pixel buffer of a megabyte) came in 4,000 slices of 256 bytes, each a call into nghttp2
    /// and the stream's state machine, 5 ms of a 1 MB request that gRPC C++ takes in 1.
    ///
    /// - Returns: False when the connection was closed.
    private func receive(_ bytes: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        var offset = 0
        var slice = Self.receiveSlice
        var quietSlices = 0
        while offset < count {
            let length = min(slice, count - offset)
            if nghttp2_session_mem_recv(session, bytes + offset, length) < 0 {
                close()
                return false
            }
            offset += length
            if answersReady {
                slice = Self.receiveSlice
                quietSlices = 0
                if offset < count {
                    answersReady = false
                    flush()
                    if isClosed { return false }
                }
            } else {
                quietSlices += 1
                if quietSlices >= Self.quietSlicesBeforeGrowing { slice = min(2 * slice, Self.largestReceiveSlice) }
            }
        }
        answersReady = false
        return true
    }

    /// Pulls frames from nghttp2 and writes them; called at the end of each loop iteration.
    func flush() {
        loop.assertInLoop()
        guard !isClosed, !isLingering, let session, isWritable else { return }
        // A few rounds at most, so one fast peer with a long response cannot hold the loop;
        // what is left goes out in the next iteration.
        var rounds = 0
        flushing: while rounds < 4 {
            rounds += 1
            while output.count - outputStart < outputHighWater {
                var pointer: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &pointer)
                if n < 0 {
                    close()
                    return
                }
                if n == 0 { break }
                if outputStart == output.count {
                    output.removeAll(keepingCapacity: true)
                    outputStart = 0
                }
                output.append(contentsOf: UnsafeBufferPointer(start: pointer, count: n))
            }
            while outputStart < output.count {
                let n = output.withUnsafeBytes { raw in
                    send(fd, raw.baseAddress! + outputStart, raw.count - outputStart, Int32(MSG_NOSIGNAL))
                }
                if n > 0 {
                    outputStart += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    break flushing
                } else {
                    close()
                    return
                }
            }
            output.removeAll(keepingCapacity: true)
            outputStart = 0
            if nghttp2_session_want_write(session) == 0 { break }
            if rounds == 4 { loop.markDirtyNextIteration(self) }
        }
        if outputStart == output.count {
            // Keep idle connections small: drop big buffers once drained.
            if output.capacity > 64 * 1024 { output = [] } else { output.removeAll(keepingCapacity: true) }
            outputStart = 0
        }
        let wantWritable = outputStart < output.count
        if wantWritable != watchingWritable {
            watchingWritable = wantWritable
            loop.modify(fd, events: baseEvents | (wantWritable ? EPOLLOUT.rawValue : 0))
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
            && outputStart == output.count
        {
            beginLingeringClose()
        }
    }

    private var isLingering = false

    /// Half-closes the socket once the session is done, then waits briefly for the peer to close.
    private func beginLingeringClose() {
        if isLingering || isClosed { return }
        isLingering = true
        shutdown(fd, Int32(SHUT_WR))
        loop.schedule(at: .now + .seconds(1)) { [weak self] in self?.close() }
    }

    var baseEvents: UInt32 { EPOLLIN.rawValue | EPOLLRDHUP.rawValue }

    /// Registers the socket with the loop.
    func register(events: UInt32? = nil) {
        loop.register(fd, handler: self, events: events ?? baseEvents)
        if let events, events & EPOLLOUT.rawValue != 0 { watchingWritable = true }
    }

    /// Closes the socket and deletes the session; never from inside an nghttp2 callback.
    func close() {
        loop.assertInLoop()
        if isClosed { return }
        isClosed = true
        loop.unregister(fd)
        Glibc.close(fd)
        if let session { nghttp2_session_del(session) }
        session = nil
        output = []
        didClose()
    }
}
