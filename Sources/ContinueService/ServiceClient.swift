public import SearchAPI
public import WireProtocol

/// A typed client of `vicontinue.v1.VisualSearch` and `grpc.health.v1.Health`.
///
/// Wraps one `GRPCClient` connection; every method may be called concurrently. Responses that do
/// not decode are reported as INTERNAL, like the server does for requests.
public struct ServiceClient: Sendable {
    /// The connection.
    public let transport: GRPCClient
    /// Sent with every call: credentials such as `authorization`.
    public let metadata: Metadata

    /// Connects lazily to `target`.
    ///
    /// - Parameter metadata: Sent with every call: credentials such as `authorization`.
    public init(target: GRPCClient.Target, configuration: ClientConfiguration = .init(), metadata: Metadata = [:]) {
        transport = GRPCClient(target: target, configuration: configuration)
        self.metadata = metadata
    }

    /// Parses `host:port`, `[v6]:port` or `unix:PATH`.
    ///
    /// - Returns: nil when the address is not one of those forms.
    public static func target(parsing address: String) -> GRPCClient.Target? {
        if address.hasPrefix("unix:") {
            let path = String(address.dropFirst(5))
            return path.isEmpty ? nil : .unix(path: path)
        }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : .tcp(host: host, port: port)
    }

    public func query(_ request: QueryRequest, options: CallOptions = .init()) async throws -> QueryResponse {
        try await unary(MethodPaths.VisualSearch.query, request, options)
    }

    /// The streaming query: results arrive as the server finds them.
    public func streamQuery(
        _ request: QueryRequest, options: CallOptions = .init()
    ) async throws -> some AsyncSequence<QueryResult, any Error> {
        let stream = try await transport.serverStreaming(
            path: MethodPaths.VisualSearch.streamQuery, request: request.serializedBytes(), metadata: metadata,
            options: options)
        return stream.map { bytes throws -> QueryResult in try decodeResponse(bytes) }
    }

    public func capture(_ request: CaptureRequest, options: CallOptions = .init()) async throws -> SearchState {
        try await unary(MethodPaths.VisualSearch.capture, request, options)
    }

    public func search(_ request: SearchRequest, options: CallOptions = .init()) async throws -> SearchState {
        try await unary(MethodPaths.VisualSearch.search, request, options)
    }

    public func resolve(_ request: ResolveRequest, options: CallOptions = .init()) async throws -> Destination {
        try await unary(MethodPaths.VisualSearch.resolve, request, options)
    }

    public func link(_ request: LinkRequest, options: CallOptions = .init()) async throws -> LinkResponse {
        try await unary(MethodPaths.VisualSearch.link, request, options)
    }

    public func upsertEntities(
        _ request: UpsertEntitiesRequest, options: CallOptions = .init()
    ) async throws -> CatalogUpdateResponse {
        try await unary(MethodPaths.VisualSearch.upsertEntities, request, options)
    }

    public func deleteEntities(
        _ request: DeleteEntitiesRequest, options: CallOptions = .init()
    ) async throws -> CatalogUpdateResponse {
        try await unary(MethodPaths.VisualSearch.deleteEntities, request, options)
    }

    public func catalogInfo(
        _ request: CatalogInfoRequest = .init(), options: CallOptions = .init()
    ) async throws -> CatalogInfoResponse {
        try await unary(MethodPaths.VisualSearch.catalogInfo, request, options)
    }

    public func explainRoute(
        _ request: ExplainRouteRequest, options: CallOptions = .init()
    ) async throws -> RouteExplanation {
        try await unary(MethodPaths.VisualSearch.explainRoute, request, options)
    }

    public func checkRoutes(
        _ request: CheckRoutesRequest = .init(), options: CallOptions = .init()
    ) async throws -> RouteCheck {
        try await unary(MethodPaths.VisualSearch.checkRoutes, request, options)
    }

    public func checkHealth(
        _ request: Health.CheckRequest = .init(), options: CallOptions = .init()
    ) async throws -> Health.CheckResponse {
        try await unary(MethodPaths.Health.check, request, options)
    }

    /// Closes the connection.
    public func close() async {
        await transport.close()
    }

    private func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ path: String, _ request: Request, _ options: CallOptions
    ) async throws -> Response {
        let response = try await transport.unary(
            path: path, request: request.serializedBytes(), metadata: metadata, options: options)
        return try decodeResponse(response.message)
    }
}

private func decodeResponse<Response: ProtoMessage>(_ bytes: [UInt8]) throws(RPCError) -> Response {
    do {
        return try Response(serializedBytes: bytes)
    } catch {
        throw RPCError(code: .internalError, message: "invalid \(Response.protoName) from the server: \(error)")
    }
}
