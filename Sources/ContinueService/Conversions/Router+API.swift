import DeepLinkRouter
import SearchAPI
import WireProtocol

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

extension RPCError {
    /// The status for a refused URL or open-intent target.
    init(_ refusal: Refusal) {
        let code: Status.Code =
            switch refusal.code {
            case .forbiddenScheme, .credentials, .hostNotAllowed: .permissionDenied
            case .notFound, .unknownEntityType: .notFound
            default: .invalidArgument
            }
        self.init(code: code, message: refusal.message)
    }

    /// The status for a destination or entity that has no link.
    init(_ error: LinkError) {
        let code: Status.Code =
            switch error.code {
            case .unknownRoute, .unknownEntityType: .notFound
            default: .invalidArgument
            }
        self.init(code: code, message: error.message)
    }
}
