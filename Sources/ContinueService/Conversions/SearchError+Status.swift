public import SearchSession
public import WireProtocol

/// The status a client sees for each kind of search-library failure.
extension SearchError: RPCErrorConvertible {
    public var rpcErrorCode: Status.Code {
        switch code {
        case .invalidArgument, .invalidCatalog, .imageDecoding: .invalidArgument
        case .notFound: .notFound
        case .storage: .unavailable
        case .catalogChanged: .failedPrecondition
        default: .internalError
        }
    }

    public var rpcErrorMessage: String { message }
}
