package import SearchAPI
package import WireProtocol

extension ServerMethod {
    /// A unary method whose handler takes and returns API messages.
    ///
    /// The request is validated and decoded before the handler runs; bytes that do not decode
    /// end the call with INTERNAL, as the gRPC spec asks for unparseable messages.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - maxRequestBytes: The receive limit for this method.
    ///   - execution: Which thread runs the handler and whether it may block, stated by every
    ///     registration (see `ServerMethod.Execution`).
    ///   - body: The handler.
    /// - Returns: The method to hand to `GRPCServer`.
    package static func unary<Request: ProtoJSONMessage, Response: ProtoJSONMessage>(
        _ path: String, maxRequestBytes: Int = 4 << 20, execution: Execution,
        _ body: @escaping @Sendable (Request, ServerContext) async throws -> Response
    ) -> ServerMethod {
        unary(path, maxRequestBytes: maxRequestBytes, execution: execution) {
            (request: EncodedRequest<Request>, context) in try await body(request.decoded(), context)
        }
    }

    /// A unary method whose handler is given its request undecoded, to decode where it chooses
    /// (``EncodedRequest/decoded()``).
    ///
    /// For large requests that must not be decoded on the event loop: a catalog write of 100
    /// entities (45 KB) took about half a millisecond to decode there, and every Capture of
    /// that loop waited behind it, up to a scheduler slice more once the write's lane ran.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - maxRequestBytes: The receive limit for this method.
    ///   - execution: Which thread runs the handler and whether it may block (see
    ///     `ServerMethod.Execution`).
    ///   - body: The handler.
    /// - Returns: The method to hand to `GRPCServer`.
    package static func unary<Request: ProtoJSONMessage, Response: ProtoJSONMessage>(
        _ path: String, maxRequestBytes: Int = 4 << 20, execution: Execution,
        _ body: @escaping @Sendable (EncodedRequest<Request>, ServerContext) async throws -> Response
    ) -> ServerMethod {
        var method = ServerMethod(path: path, kind: .unary, maxRequestBytes: maxRequestBytes, execution: execution) {
            bytes, context, writer in
            let response = try await body(EncodedRequest(bytes: bytes), context)
            try await writer.write(response.serializedBytes())
        }
        method.json = .between(Request.self, Response.self)
        return method
    }

    /// A unary method answered synchronously on the connection's event loop (see
    /// `ServerMethod.SynchronousUnaryHandler`; its execution is `.onLoop`): for handlers that never
    /// wait and take microseconds, such as a health check, a sheet query or resolving a link.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - maxRequestBytes: The receive limit for this method.
    ///   - body: The handler.
    /// - Returns: The method to hand to `GRPCServer`.
    package static func unaryOnLoop<Request: ProtoJSONMessage, Response: ProtoJSONMessage>(
        _ path: String, maxRequestBytes: Int = 4 << 20,
        _ body: @escaping @Sendable (Request, ServerContext) throws(RPCError) -> Response
    ) -> ServerMethod {
        var method = ServerMethod(unaryPath: path, maxRequestBytes: maxRequestBytes, execution: .onLoop) {
            (bytes, context) throws(RPCError) in
            let request: Request = try decode(bytes)
            return try body(request, context).serializedBytes()
        }
        method.json = .between(Request.self, Response.self)
        return method
    }

    /// A server-streaming method whose handler takes an API message and sends API messages.
    ///
    /// - Parameters:
    ///   - path: "/package.Service/Method".
    ///   - maxRequestBytes: The receive limit for this method.
    ///   - execution: Which thread runs the handler and whether it may block (see
    ///     `ServerMethod.Execution`).
    ///   - body: The handler; it sends each response through the sink it is given.
    /// - Returns: The method to hand to `GRPCServer`.
    package static func serverStreaming<Request: ProtoJSONMessage, Response: ProtoJSONMessage>(
        _ path: String, maxRequestBytes: Int = 4 << 20, execution: Execution,
        _ body: @escaping @Sendable (Request, ServerContext, MessageSink<Response>) async throws -> Void
    ) -> ServerMethod {
        var method = ServerMethod(
            path: path, kind: .serverStreaming, maxRequestBytes: maxRequestBytes, execution: execution
        ) {
            bytes, context, writer in
            let request: Request = try decode(bytes)
            try await body(request, context, MessageSink(writer: writer))
        }
        method.json = .between(Request.self, Response.self)
        return method
    }

    /// This method, callable with GET by Connect clients: for reads without side effects.
    package func allowingGET() -> ServerMethod {
        var method = self
        method.allowsGET = true
        return method
    }
}

/// Sends the responses of a server-streaming handler.
package struct MessageSink<Message: ProtoMessage>: Sendable {
    /// The transport's writer.
    package let writer: any ResponseWriter

    /// Sends one message; suspends while the client reads slowly.
    package func send(_ message: Message, compression: CompressionAlgorithm? = nil) async throws {
        try await writer.write(message.serializedBytes(), compression: compression)
    }
}

/// A request's bytes as they came, decoded on demand.
package struct EncodedRequest<Request: ProtoMessage>: Sendable {
    /// The message's bytes (after decompression).
    package let bytes: [UInt8]

    /// The request; bytes that do not decode throw INTERNAL, as for a decoded request.
    package func decoded() throws(RPCError) -> Request {
        try decode(bytes)
    }
}

/// Decodes a request, mapping validation failures to INTERNAL with the field that failed.
func decode<Request: ProtoMessage>(_ bytes: [UInt8]) throws(RPCError) -> Request {
    do {
        return try Request(serializedBytes: bytes)
    } catch {
        throw RPCError(code: .internalError, message: "invalid \(Request.protoName): \(error)", cause: error)
    }
}

extension MessageJSONCoding {
    /// The proto3 JSON of a method taking `Request` and answering `Response`.
    package static func between<Request: ProtoJSONMessage, Response: ProtoJSONMessage>(
        _ request: Request.Type, _ response: Response.Type
    ) -> MessageJSONCoding {
        MessageJSONCoding(
            requestFromJSON: { bytes throws(RPCError) in
                do {
                    return try Request(jsonBytes: bytes).serializedBytes()
                } catch {
                    throw RPCError(
                        code: .invalidArgument, message: "invalid \(Request.protoName): \(error)", cause: error)
                }
            },
            responseToJSON: { bytes throws(RPCError) in
                do {
                    return try Response(serializedBytes: bytes).jsonBytes()
                } catch {
                    throw RPCError(
                        code: .internalError, message: "unreadable \(Response.protoName): \(error)", cause: error)
                }
            })
    }
}
