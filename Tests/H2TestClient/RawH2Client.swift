// A raw HTTP/2 client on nghttp2 for tests that must speak the protocol badly or at its limits
// (WireProtocolTests against an in-process server, ServiceTests against `vi-continue serve`).

import CNghttp2
import Glibc

/// What a raw stream received.
public struct RawReply {
    public var headers: [(String, String)] = []
    public var trailers: [(String, String)] = []
    public var data: [UInt8] = []
    public var resetCode: UInt32?
    public var closed = false
    public var endStreamReceived = false

    private func value(_ name: String) -> String? {
        trailers.first { $0.0 == name }?.1 ?? headers.first { $0.0 == name }?.1
    }
    public var httpStatus: Int? { headers.first { $0.0 == ":status" }.flatMap { Int($0.1) } }
    public var grpcStatus: Int? { value("grpc-status").flatMap { Int($0) } }
    public var grpcMessage: String? { value("grpc-message") }
    public func header(_ name: String) -> String? { value(name) }
}

public struct RawClientError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A blocking TCP socket connected to 127.0.0.1:`port`.
///
/// - Throws: `RawClientError` with the errno when the connection is refused (the socket is closed).
public func connectToLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard rc == 0 else {
        let error = errno
        close(fd)
        throw RawClientError(description: "connect failed: \(error)")
    }
    return fd
}

/// A deliberately plain HTTP/2 client on nghttp2 and a blocking socket, for sending the
/// malformed or hostile requests `GRPCClient` never would.
public final class RawH2Client {
    public let fd: Int32
    public var session: OpaquePointer?
    public var replies: [Int32: RawReply] = [:]
    public var bodies: [Int32: (bytes: [UInt8], offset: Int, end: Bool)] = [:]
    public var goawayCode: UInt32?
    /// The last stream id the server's GOAWAY said it processed.
    public var goawayLastStreamID: Int32?
    public var connectionClosed = false

    /// Connects to 127.0.0.1:`port`; with `waitsForServerStreamLimit` false, streams are sent
    /// before the server's SETTINGS say how many it allows, as a flooding client would.
    public init(port: Int, waitsForServerStreamLimit: Bool = true) throws {
        fd = try connectToLoopback(port: port)
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, user in
            let client = Unmanaged<RawH2Client>.fromOpaque(user!).takeUnretainedValue()
            let id = frame!.pointee.hd.stream_id
            let pair = (
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            )
            if frame!.pointee.headers.cat == NGHTTP2_HCAT_HEADERS {
                client.replies[id, default: RawReply()].trailers.append(pair)
            } else {
                client.replies[id, default: RawReply()].headers.append(pair)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            let client = Unmanaged<RawH2Client>.fromOpaque(user!).takeUnretainedValue()
            let header = frame!.pointee.hd
            if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                client.goawayCode = frame!.pointee.goaway.error_code
                client.goawayLastStreamID = frame!.pointee.goaway.last_stream_id
            }
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
                header.type == UInt8(NGHTTP2_HEADERS.rawValue) || header.type == UInt8(NGHTTP2_DATA.rawValue)
            {
                client.replies[header.stream_id, default: RawReply()].endStreamReceived = true
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            let client = Unmanaged<RawH2Client>.fromOpaque(user!).takeUnretainedValue()
            client.replies[id, default: RawReply()].data.append(
                contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            let client = Unmanaged<RawH2Client>.fromOpaque(user!).takeUnretainedValue()
            client.replies[id, default: RawReply()].closed = true
            if code != 0 { client.replies[id, default: RawReply()].resetCode = code }
            return 0
        }
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // A hostile client does not hold streams back until the server's SETTINGS arrive (nghttp2
        // would assume a limit of 100 until then): it sends as many as it likes.
        if !waitsForServerStreamLimit { nghttp2_option_set_peer_max_concurrent_streams(option, UInt32.max) }
        nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_submit_settings(session, 0, nil, 0)
    }

    deinit {
        nghttp2_session_del(session)
        close(fd)
    }

    /// Opens a stream with a gRPC-looking request; headers in `replace` override the defaults
    /// ("<none>" leaves one out).
    @discardableResult
    public func open(
        path: String, body: [UInt8], endStream: Bool = true, extraHeaders: [(String, String)] = [],
        replace: [String: String] = [:]
    ) -> Int32 {
        var headers: [(String, String)] = [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
            ("content-type", "application/grpc"), ("te", "trailers"),
        ]
        headers = headers.compactMap { name, value in
            guard let replacement = replace[name] else { return (name, value) }
            return replacement == "<none>" ? nil : (name, replacement)
        }
        headers += extraHeaders
        var storage: [[UInt8]] = []
        for (name, value) in headers {
            storage.append(Array(name.utf8))
            storage.append(Array(value.utf8))
        }
        let pointers = storage.map { bytes -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
            p.initialize(from: bytes, count: bytes.count)
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        var nv: [nghttp2_nv] = []
        for i in 0..<headers.count {
            nv.append(
                nghttp2_nv(
                    name: pointers[2 * i], value: pointers[2 * i + 1], namelen: storage[2 * i].count,
                    valuelen: storage[2 * i + 1].count, flags: 0))
        }
        var provider = nghttp2_data_provider(
            source: nghttp2_data_source(ptr: nil),
            read_callback: { _, id, buffer, length, flags, _, user in
                let client = Unmanaged<RawH2Client>.fromOpaque(user!).takeUnretainedValue()
                guard var body = client.bodies[id] else { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
                let take = min(length, body.bytes.count - body.offset)
                if take > 0 {
                    body.bytes.withUnsafeBufferPointer {
                        buffer!.update(from: $0.baseAddress! + body.offset, count: take)
                    }
                }
                body.offset += take
                client.bodies[id] = body
                if body.offset == body.bytes.count {
                    if body.end {
                        flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
                    } else if take == 0 {
                        return Int(NGHTTP2_ERR_DEFERRED.rawValue)
                    }
                }
                return take
            })
        let id = nghttp2_submit_request(session, nil, nv, nv.count, &provider, nil)
        bodies[id] = (body, 0, endStream)
        replies[id] = RawReply()
        return id
    }

    /// Sends a request and waits for its stream to close.
    public func call(
        path: String, body: [UInt8], endStream: Bool = true, extraHeaders: [(String, String)] = [],
        replace: [String: String] = [:], seconds: Double = 30
    ) async throws -> RawReply {
        let id = open(path: path, body: body, endStream: endStream, extraHeaders: extraHeaders, replace: replace)
        try await pump(seconds: seconds) { self.replies[id]!.closed || self.replies[id]!.endStreamReceived }
        return replies[id]!
    }

    /// Writes pending frames and reads until `done` holds; throws after `seconds`.
    ///
    /// Polls without blocking and sleeps between polls, so the test never ties up a thread of
    /// the cooperative pool that the server's handlers need.
    public func pump(seconds: Double = 30, until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 65536)
        defer { buffer.deallocate() }
        while true {
            if ContinuousClock.now > deadline { throw RawClientError(description: "timed out") }
            while true {
                var pointer: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &pointer)
                if n <= 0 { break }
                var sent = 0
                while sent < n {
                    let w = send(fd, pointer! + sent, n - sent, Int32(MSG_NOSIGNAL))
                    if w <= 0 {
                        connectionClosed = true
                        return
                    }
                    sent += w
                }
            }
            if done() { return }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) <= 0 {
                try await Task.sleep(for: .milliseconds(1))
            } else {
                let n = recv(fd, buffer, 65536, 0)
                if n <= 0 {
                    connectionClosed = true
                    return
                }
                if nghttp2_session_mem_recv(session, buffer, n) < 0 {
                    connectionClosed = true
                    return
                }
            }
        }
    }

    /// Reads whatever has already arrived, without waiting.
    public func receiveAvailable() {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 65536)
        defer { buffer.deallocate() }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !connectionClosed, poll(&poller, 1, 0) > 0 {
            let n = recv(fd, buffer, 65536, 0)
            if n <= 0 || nghttp2_session_mem_recv(session, buffer, n) < 0 {
                connectionClosed = true
            }
        }
    }

    /// Resets a stream with CANCEL.
    public func reset(_ id: Int32) {
        nghttp2_submit_rst_stream(session, 0, id, NGHTTP2_CANCEL.rawValue)
    }

    /// Queues a PING.
    public func ping() {
        nghttp2_submit_ping(session, 0, nil)
    }
}
