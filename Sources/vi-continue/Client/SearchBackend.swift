import SearchAPI
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

extension SearchBackend {
    /// Makes one call, turning a failed call into the ``CommandFailure`` of its exit code.
    func perform<Response>(_ call: (Self) async throws -> Response) async throws(CommandFailure) -> Response {
        do {
            return try await call(self)
        } catch let error as RPCError {
            throw CommandFailure(error, server: name)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(exitCode: ExitCode.rpcFailure, message: "\(name): \(error)")
        }
    }
}

/// Runs `body` with a backend and closes the backend afterwards, whatever happens.
func withBackend<Backend: SearchBackend, Value>(
    _ backend: Backend, _ body: (Backend) async throws(CommandFailure) -> Value
) async throws(CommandFailure) -> Value {
    let outcome: Result<Value, CommandFailure>
    do {
        outcome = .success(try await body(backend))
    } catch {
        outcome = .failure(error)
    }
    await backend.close()
    return try outcome.get()
}
