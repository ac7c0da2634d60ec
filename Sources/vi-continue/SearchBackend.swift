import ContinueService
import SearchAPI
import Synchronization
import WireProtocol

/// Where client commands send their calls: a server over gRPC, or the service's own handlers
/// run in this process.
///
/// Both speak the API messages of `proto/search.proto`, so a command builds one request and
/// prints one response the same way whichever side answered, and the in-process answers are the
/// server's answers (same handlers, same linking of results).
protocol SearchBackend: Sendable {
    /// Names the backend in error messages: the server address, or "in-process".
    var name: String { get }
    func query(_ request: QueryRequest) async throws -> QueryResponse
    func capture(_ request: CaptureRequest) async throws -> SearchState
    func search(_ request: SearchRequest) async throws -> SearchState
    func resolve(_ request: ResolveRequest) async throws -> Destination
    func link(_ request: LinkRequest) async throws -> LinkResponse
    func upsertEntities(_ request: UpsertEntitiesRequest) async throws -> CatalogUpdateResponse
    func deleteEntities(_ request: DeleteEntitiesRequest) async throws -> CatalogUpdateResponse
    /// Releases the connection, if any.
    func close() async
}

/// A server reached over gRPC.
struct RemoteBackend: SearchBackend {
    let name: String
    let client: ServiceClient
    let options: CallOptions

    /// Connects to `address`, failing fast when nothing accepts the connection.
    ///
    /// - Throws: ``CommandFailure`` with exit 2 for an address that does not parse, exit 3 when
    ///   the server cannot be reached within `connectTimeout`.
    static func connect(
        address: String, connectTimeout: Duration, callTimeout: Duration
    ) throws(CommandFailure) -> RemoteBackend {
        guard let target = ServiceClient.target(parsing: address) else {
            throw .usage("--server '\(address)' is not host:port or unix:PATH")
        }
        if let cause = ConnectProbe.check(target, timeout: connectTimeout) {
            throw CommandFailure(exitCode: ExitCode.rpcFailure, message: "cannot connect to \(address): \(cause)")
        }
        let configuration = ClientConfiguration(maxReceiveMessageBytes: 64 << 20, userAgent: "vi-continue-cli")
        return RemoteBackend(
            name: address, client: ServiceClient(target: target, configuration: configuration),
            options: CallOptions(timeout: callTimeout))
    }

    func query(_ request: QueryRequest) async throws -> QueryResponse {
        try await client.query(request, options: options)
    }
    func capture(_ request: CaptureRequest) async throws -> SearchState {
        try await client.capture(request, options: options)
    }
    func search(_ request: SearchRequest) async throws -> SearchState {
        try await client.search(request, options: options)
    }
    func resolve(_ request: ResolveRequest) async throws -> Destination {
        try await client.resolve(request, options: options)
    }
    func link(_ request: LinkRequest) async throws -> LinkResponse {
        try await client.link(request, options: options)
    }
    func upsertEntities(_ request: UpsertEntitiesRequest) async throws -> CatalogUpdateResponse {
        try await client.upsertEntities(request, options: options)
    }
    func deleteEntities(_ request: DeleteEntitiesRequest) async throws -> CatalogUpdateResponse {
        try await client.deleteEntities(request, options: options)
    }
    func close() async {
        await client.close()
    }
}

/// The service's handlers called directly, with no socket: `--catalog` and offline `--routes`.
struct InProcessBackend: SearchBackend {
    let name = "in-process"
    let methods: [String: ServerMethod]

    init(service: VisualSearchService) {
        var methods: [String: ServerMethod] = [:]
        for method in service.methods { methods[method.path] = method }
        self.methods = methods
    }

    func query(_ request: QueryRequest) async throws -> QueryResponse {
        try await call(MethodPaths.VisualSearch.query, request)
    }
    func capture(_ request: CaptureRequest) async throws -> SearchState {
        try await call(MethodPaths.VisualSearch.capture, request)
    }
    func search(_ request: SearchRequest) async throws -> SearchState {
        try await call(MethodPaths.VisualSearch.search, request)
    }
    func resolve(_ request: ResolveRequest) async throws -> Destination {
        try await call(MethodPaths.VisualSearch.resolve, request)
    }
    func link(_ request: LinkRequest) async throws -> LinkResponse {
        try await call(MethodPaths.VisualSearch.link, request)
    }
    func upsertEntities(_ request: UpsertEntitiesRequest) async throws -> CatalogUpdateResponse {
        try await call(MethodPaths.VisualSearch.upsertEntities, request)
    }
    func deleteEntities(_ request: DeleteEntitiesRequest) async throws -> CatalogUpdateResponse {
        try await call(MethodPaths.VisualSearch.deleteEntities, request)
    }
    func close() async {}

    /// Runs one unary handler on the request's bytes and decodes the one message it wrote.
    private func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ path: String, _ request: Request
    ) async throws -> Response {
        guard let method = methods[path] else {
            throw RPCError(code: .unimplemented, message: "\(path) is not served")
        }
        let writer = CollectingWriter()
        try await method.handler(request.serializedBytes(), ServerContext(path: path), writer)
        guard let bytes = writer.messages.first else {
            throw RPCError(code: .internalError, message: "\(path) answered no message")
        }
        return try Response(serializedBytes: bytes)
    }
}

/// Keeps what a handler writes, in place of a network stream.
private final class CollectingWriter: ResponseWriter {
    private let written = Mutex<[[UInt8]]>([])

    var messages: [[UInt8]] { written.withLock { $0 } }

    func setInitialMetadata(_ metadata: Metadata) {}
    func setTrailingMetadata(_ metadata: Metadata) {}
    func write(_ message: [UInt8], compression: CompressionAlgorithm?) async throws {
        written.withLock { $0.append(message) }
    }
}
