import SearchSession
import WireProtocol

extension RPCError {
    /// The status for a search-library failure.
    init(_ error: SearchError) {
        let code: Status.Code =
            switch error.code {
            case .invalidArgument, .invalidCatalog, .imageDecoding: .invalidArgument
            case .notFound: .notFound
            case .storage: .unavailable
            case .catalogChanged: .failedPrecondition
            default: .internalError
            }
        self.init(code: code, message: error.message, cause: error)
    }
}
