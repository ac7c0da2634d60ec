import ContinueService
import SearchAPI
import Synchronization
import WireProtocol

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
