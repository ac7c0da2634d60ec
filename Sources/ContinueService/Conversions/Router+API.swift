public import DeepLinkRouter
import SearchAPI
public import WireProtocol

// Router results → API messages, and router failures → gRPC statuses.

extension SearchAPI.Destination {
    init(_ destination: DeepLinkRouter.Destination) {
        self.init(
            screen: destination.screen, params: destination.parameters.map(SearchAPI.Param.init),
            entity: destination.entity.map { SearchAPI.EntityRef(type: $0.type, id: $0.id) },
            canonicalURL: destination.canonicalURL, fallback: destination.isFallback,
            fallbackReason: destination.fallbackReason ?? "", route: destination.routeName)
    }
}

extension SearchAPI.Param {
    init(_ parameter: DeepLinkRouter.Parameter) {
        let kind: SearchAPI.ParamKind =
            switch parameter.kind {
            case .int: .int
            case .uuid: .uuid
            case .slug: .slug
            case .enum: .enum
            case .string: .string
            case .catchAll: .catchAll
            }
        let value: SearchAPI.Param.Value =
            if let number = parameter.intValue { .intValue(Int64(number)) } else { .stringValue(parameter.value) }
        self.init(name: parameter.name, kind: kind, value: value, fromQuery: parameter.fromQuery)
    }
}

extension SearchAPI.LinkResponse {
    init(_ link: DeepLinkRouter.Link) {
        self.init(url: link.canonicalURL, appURL: link.appURL ?? "", universalURL: link.universalURL ?? "")
    }
}

/// The status for a refused URL or open-intent target.
extension Refusal: RPCErrorConvertible {
    public var rpcErrorCode: Status.Code {
        switch code {
        case .forbiddenScheme, .credentials, .hostNotAllowed: .permissionDenied
        case .notFound, .unknownEntityType: .notFound
        default: .invalidArgument
        }
    }

    public var rpcErrorMessage: String { message }
}

/// The status for a destination or entity that has no link.
extension LinkError: RPCErrorConvertible {
    public var rpcErrorCode: Status.Code {
        switch code {
        case .unknownRoute, .unknownEntityType: .notFound
        default: .invalidArgument
        }
    }

    public var rpcErrorMessage: String { message }
}
