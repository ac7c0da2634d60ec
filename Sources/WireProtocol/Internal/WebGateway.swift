internal import Base64Coding
internal import HTTP1
internal import WebProtocols

/// An answer to one web request (HTTP/1.1, or HTTP/2 that is not gRPC).
struct WebResponse: Sendable {
    var status: Int
    var fields: [HTTP1RequestHead.Field]
    var body: [UInt8]

    static func text(_ status: Int, _ text: String) -> WebResponse {
        WebResponse(
            status: status, fields: [.init(name: "content-type", value: "text/plain; charset=utf-8")],
            body: Array(text.utf8))
    }
}

/// Answers the web requests on the gRPC port, over HTTP/1.1 and HTTP/2 alike: CORS preflights,
/// `/healthz`, `/metrics`, files, and the served methods in the Connect protocol (unary, JSON or
/// protobuf, POST or GET) and in gRPC-Web (binary or text). An HTTP/2 request reaches it in
/// HTTP/1.1's terms (`:authority` as `Host`), so both answer the same.
struct WebGateway: Sendable {
    let core: ServerCore
    let cors: CORSPolicy

    init(core: ServerCore) {
        self.core = core
        cors = CORSPolicy(allowedOrigins: core.configuration.web.allowedOrigins)
    }

    /// Answers `head` and `body`; `reply` is called exactly once, on `loop`.
    func answer(
        _ head: HTTP1RequestHead, body: [UInt8], peer: String, peerKey: String, loop: EventLoop,
        reply: @escaping @Sendable (WebResponse) -> Void
    ) {
        if head.method == "OPTIONS" {
            reply(preflight(head))
            return
        }
        guard let corsFields = cors.responseFields(for: head) else {
            reply(.text(403, "this origin may not call the service (see serve --allow-origin)\n"))
            return
        }
        let path = String(head.path)
        let finish: @Sendable (WebResponse) -> Void = { response in
            var response = response
            response.fields += corsFields
            if head.method == "HEAD" { response.body = [] }
            reply(response)
        }
        if let method = core.methods.method(forPath: path) {
            call(method, head: head, body: body, peer: peer, peerKey: peerKey, loop: loop, finish: finish)
            return
        }
        guard head.method == "GET" || head.method == "HEAD" else {
            finish(.text(path.hasPrefix("/") && path.dropFirst().contains("/") ? 404 : 405, "no such method\n"))
            return
        }
        if let response = resource(path) {
            finish(response)
        } else if let lookup = core.configuration.web.fileLookup {
            // A file found per request is read from disk, which may block: on the blocking
            // pool, never the loop; the answer goes back to the loop.
            core.blockingExecutor.execute {
                let response = Self.fileResponse(lookup(path))
                loop.execute { finish(response) }
            }
        } else {
            finish(Self.fileResponse(nil))
        }
    }

    /// `/healthz`, `/metrics` and the files kept in memory; `nil` for a path left to `fileLookup`.
    private func resource(_ path: String) -> WebResponse? {
        let web = core.configuration.web
        switch path {
        case "/healthz":
            return core.isShuttingDown ? .text(503, "shutting down\n") : .text(200, "ok\n")
        case "/metrics":
            guard let metrics = web.metrics else { return .text(404, "no metrics here\n") }
            return WebResponse(
                status: 200, fields: [.init(name: "content-type", value: "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(metrics().utf8))
        default:
            guard let file = web.files[path] else { return nil }
            return Self.fileResponse(file)
        }
    }

    private static func fileResponse(_ file: WebFile?) -> WebResponse {
        guard let file else { return .text(404, "not found\n") }
        return WebResponse(
            status: 200,
            fields: [
                .init(name: "content-type", value: file.contentType),
                .init(name: "cache-control", value: file.cacheControl),
                .init(name: "x-content-type-options", value: "nosniff"),
            ],
            body: file.bytes)
    }

    private func preflight(_ head: HTTP1RequestHead) -> WebResponse {
        guard let fields = cors.preflightFields(for: head) else {
            return .text(403, "this origin, method or header is not allowed\n")
        }
        return WebResponse(status: 204, fields: fields, body: [])
    }

    // MARK: - Calls

    private func call(
        _ method: ServerMethod, head: HTTP1RequestHead, body: [UInt8], peer: String, peerKey: String, loop: EventLoop,
        finish: @escaping @Sendable (WebResponse) -> Void
    ) {
        let contentType = head.field("content-type") ?? ""
        if head.method == "POST", let mode = GRPCWeb.mode(contentType: contentType) {
            grpcWeb(
                method, mode: mode, head: head, body: body, peer: peer, peerKey: peerKey, loop: loop, finish: finish)
            return
        }
        let request: ConnectUnaryRequest
        do {
            switch head.method {
            case "POST":
                guard ConnectUnary.codec(contentType: contentType) != nil else {
                    finish(
                        .text(415, "send application/json or application/proto (Connect), or application/grpc-web\n"))
                    return
                }
                request = try ConnectUnary.post(head, body: body)
            case "GET" where method.allowsGET:
                request = try ConnectUnary.get(head)
            default:
                finish(.text(405, "use POST\(method.allowsGET ? " or GET" : "")\n"))
                return
            }
        } catch {
            finish(connectError(error))
            return
        }
        guard method.kind == .unary else {
            let protocols = method.kind.streamsRequests ? "gRPC" : "gRPC or gRPC-Web"
            finish(
                connectError(ConnectError(grpcCode: 12, message: "\(method.path) streams: call it with \(protocols)")))
            return
        }
        let message: [UInt8]
        do throws(RPCError) {
            let inflated = try decompressed(
                request.message, encoding: request.contentEncoding, limit: method.maxRequestBytes)
            switch request.codec {
            case .proto:
                message = inflated
            case .json:
                guard let json = method.json else {
                    throw RPCError(code: .unimplemented, message: "\(method.path) takes application/proto only")
                }
                message = try json.requestFromJSON(inflated)
            }
        } catch {
            finish(connectError(ConnectError(grpcCode: error.code.rawValue, message: error.message)))
            return
        }
        let context = ServerContext(
            path: method.path, requestMetadata: metadata(head), deadline: request.timeout.map { .now + $0 }, peer: peer)
        WebCall.run(method, request: message, context: context, core: core, peerKey: peerKey, loop: loop) { outcome in
            guard outcome.status.code == .ok, let response = outcome.messages.first else {
                finish(
                    connectError(ConnectError(grpcCode: outcome.status.code.rawValue, message: outcome.status.message)))
                return
            }
            var bytes = response
            if request.codec == .json {
                do throws(RPCError) {
                    bytes = try method.json!.responseToJSON(response)
                } catch {
                    finish(connectError(ConnectError(grpcCode: error.code.rawValue, message: error.message)))
                    return
                }
            }
            var fields = ConnectUnary.responseFields(for: request.codec)
            // A GET is a read: let browsers and proxies keep it for a moment.
            if request.isGet { fields.append(.init(name: "cache-control", value: "private, max-age=5")) }
            finish(WebResponse(status: 200, fields: fields, body: bytes))
        }
    }

    private func grpcWeb(
        _ method: ServerMethod, mode: GRPCWeb.Mode, head: HTTP1RequestHead, body: [UInt8], peer: String,
        peerKey: String, loop: EventLoop, finish: @escaping @Sendable (WebResponse) -> Void
    ) {
        let answer: @Sendable ([[UInt8]], Status, Metadata) -> Void = { messages, status, metadata in
            var bytes = [UInt8]()
            for message in messages { bytes += GRPCWeb.messageFrame(message) }
            var trailers: [HTTP1RequestHead.Field] = [.init(name: "grpc-status", value: String(status.code.rawValue))]
            if !status.message.isEmpty {
                trailers.append(
                    .init(
                        name: "grpc-message",
                        value: String(decoding: PercentEncoding.encode(status.message), as: UTF8.self)))
            }
            for entry in metadata where !Metadata.isReserved(entry.key) {
                if case .string(let value) = entry.value { trailers.append(.init(name: entry.key, value: value)) }
            }
            bytes += GRPCWeb.trailerFrame(trailers)
            finish(
                WebResponse(
                    status: 200, fields: GRPCWeb.responseFields(for: mode),
                    body: GRPCWeb.responseBytes(bytes, mode: mode)))
        }
        // A gRPC-Web call here carries one request message, whole, before any answer.
        guard !method.kind.streamsRequests else {
            answer(
                [],
                Status(code: .unimplemented, message: "\(method.path) takes a stream of requests: call it with gRPC"),
                [:])
            return
        }
        guard let frames = GRPCWeb.requestFrames(body, mode: mode) else {
            answer([], Status(code: .invalidArgument, message: "the grpc-web-text body is not base64"), [:])
            return
        }
        // One length-prefixed message: flag 0 (gRPC-Web clients do not compress requests).
        guard frames.count >= 5, frames[0] == 0 else {
            answer([], Status(code: .internalError, message: "the request is not one uncompressed gRPC message"), [:])
            return
        }
        let length = Int(frames[1]) << 24 | Int(frames[2]) << 16 | Int(frames[3]) << 8 | Int(frames[4])
        guard frames.count == 5 + length else {
            answer(
                [], Status(code: .internalError, message: "the request's length prefix does not match its body"), [:])
            return
        }
        guard length <= method.maxRequestBytes else {
            answer(
                [],
                Status(code: .resourceExhausted, message: "the request is larger than \(method.maxRequestBytes) bytes"),
                [:])
            return
        }
        let deadline = head.field("grpc-timeout").flatMap { GRPCTimeout.parse($0) }.map { ContinuousClock.now + $0 }
        let context = ServerContext(path: method.path, requestMetadata: metadata(head), deadline: deadline, peer: peer)
        WebCall.run(method, request: Array(frames[5...]), context: context, core: core, peerKey: peerKey, loop: loop) {
            outcome in
            answer(outcome.messages, outcome.status, outcome.metadata)
        }
    }

    /// The request's custom fields as call metadata (`authorization`, `x-request-id`…).
    private func metadata(_ head: HTTP1RequestHead) -> Metadata {
        var metadata = Metadata()
        for field in head.fields where !Metadata.isReserved(field.name) {
            switch field.name {
            case "accept", "accept-encoding", "accept-language", "origin", "referer", "cookie",
                "connect-protocol-version",
                "connect-timeout-ms", "content-encoding", "x-grpc-web", "expect", "cache-control", "pragma":
                continue
            default:
                field.value.utf8.withContiguousStorageIfAvailable { metadata.addFromWire(name: field.name, value: $0) }
                    ?? Array(field.value.utf8).withUnsafeBufferPointer {
                        metadata.addFromWire(name: field.name, value: $0)
                    }
            }
        }
        return metadata
    }

    private func decompressed(_ bytes: [UInt8], encoding: String, limit: Int) throws(RPCError) -> [UInt8] {
        guard encoding == "gzip" else {
            guard bytes.count <= limit else {
                throw RPCError(code: .resourceExhausted, message: "the request is larger than \(limit) bytes")
            }
            return bytes
        }
        return try MessageDecoder.decode(compressed: true, bytes: bytes, encoding: .gzip, limit: limit)
    }

    private func connectError(_ error: ConnectError) -> WebResponse {
        WebResponse(status: error.httpStatus, fields: ConnectUnary.errorFields, body: error.jsonBody())
    }
}
