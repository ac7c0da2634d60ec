import ContinueService
import SearchAPI
import WireProtocol

/// A server reached over gRPC.
struct RemoteBackend: SearchBackend {
    let name: String
    let client: ServiceClient
    let options: CallOptions

    /// Connects to `address`, failing fast when nothing accepts the connection.
    ///
    /// - Throws: ``CommandFailure`` with exit 2 for an address that does not parse, exit 3 when
    ///   the server cannot be reached within `connectTimeout`.
    ///   `metadata` goes with every call (the write token).
    static func connect(
        address: String, connectTimeout: Duration, callTimeout: Duration, metadata: Metadata = [:]
    ) throws(CommandFailure) -> RemoteBackend {
        guard let target = ServiceClient.target(parsing: address) else {
            throw .usage("--server '\(address)' is not host:port or unix:PATH")
        }
        if let cause = ConnectProbe.check(target, timeout: connectTimeout) {
            throw CommandFailure(exitCode: ExitCode.rpcFailure, message: "cannot connect to \(address): \(cause)")
        }
        let configuration = ClientConfiguration(maxReceiveMessageBytes: 64 << 20, userAgent: "vi-continue-cli")
        return RemoteBackend(
            name: address, client: ServiceClient(target: target, configuration: configuration, metadata: metadata),
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
