/// An error that knows the gRPC status it stands for.
///
/// The one way a library error becomes wire status: a handler may throw any error that conforms
/// and the server sends its code, message and metadata, just as for an ``RPCError``; a handler
/// with typed throws converts with ``RPCError/init(_:)``. Libraries stay free of the wire: the
/// conformances live in the module that serves them, beside the other conversions to the API.
///
/// Modelled on grpc-swift's `RPCErrorConvertible`.
public protocol RPCErrorConvertible: Error {
    /// The status code; never `.ok`.
    var rpcErrorCode: Status.Code { get }
    /// The status message the client sees.
    var rpcErrorMessage: String { get }
    /// Trailing metadata sent with the status; none by default.
    var rpcErrorMetadata: Metadata { get }
}

extension RPCErrorConvertible {
    public var rpcErrorMetadata: Metadata { [:] }
}

extension RPCError {
    /// The status `error` stands for, with `error` kept as the cause (never sent).
    public init(_ error: some RPCErrorConvertible) {
        self.init(
            code: error.rpcErrorCode, message: error.rpcErrorMessage, metadata: error.rpcErrorMetadata, cause: error)
    }
}
