/// A route as declared in the table, for display and tooling.
public struct Route: Hashable, Sendable {
    /// The route's unique name (defaults to its pattern).
    public var name: String
    /// The path pattern, such as `/album/{id:slug}`.
    public var pattern: String
    /// The screen the route opens.
    public var screen: String
    /// The entity type the route opens (its open-intent target), if any.
    public var entityType: String?
    /// The typed query parameters, sorted by name.
    public var queryParameters: [QueryParameter]
}

/// A typed query parameter of a route.
public struct QueryParameter: Hashable, Sendable {
    /// The parameter's name in the query string.
    public var name: String
    /// Its type.
    public var kind: ParameterKind
    /// The allowed values of an `.enum`, otherwise empty.
    public var values: [String]
    /// The value used when the query does not carry a valid one.
    public var defaultValue: String?
}

/// What a URL whose path ends in `/` matches when no route matches it as is.
public enum TrailingSlashPolicy: String, Hashable, Sendable {
    /// Match exactly first; then retry without the one trailing slash.
    case ignore
    /// Match exactly only: `/album/42/` is not `/album/42`.
    case strict
}

/// The immutable, resolved form of one route, shared by the matcher and destinations.
final class RouteInfo: Sendable {
    struct PathParameter: Sendable {
        var name: String
        var type: ParameterType
    }

    struct QuerySpec: Sendable {
        var name: String
        var type: ParameterType
        var defaultValue: String?
    }

    let name: String
    let pattern: String
    let screen: String
    let entityType: String?
    let segments: [PatternSegment]
    let pathParameters: [PathParameter]
    /// The kinds of the path parameters, for reverse routing without copying their descriptions.
    let pathKinds: [ParameterKind]
    let query: [QuerySpec]
    let rank: [UInt8]
    /// Position in precedence order: a lower index wins between routes matching one URL.
    let index: Int
    let appScheme: String?
    let universalHost: String?
    /// The canonical app-scheme URL with holes for the path parameters, when there is a scheme.
    let appLink: LinkTemplate?
    /// The canonical universal link with holes, when there is a host.
    let universalLink: LinkTemplate?

    init(draft: RouteDraft, index: Int, appScheme: String?, universalHost: String?) {
        name = draft.name
        pattern = draft.pattern
        screen = draft.screen
        entityType = draft.entityType
        segments = draft.segments
        pathParameters = draft.segments.compactMap {
            if case .parameter(let name, let type) = $0 { return PathParameter(name: name, type: type) }
            return nil
        }
        pathKinds = pathParameters.map(\.type.kind)
        query = draft.query
        rank = draft.rank
        self.index = index
        self.appScheme = appScheme
        self.universalHost = universalHost
        appLink = appScheme.map { LinkTemplate(segments: draft.segments, scheme: $0, host: nil) }
        universalLink = universalHost.map { LinkTemplate(segments: draft.segments, scheme: nil, host: $0) }
    }

    /// The number of path parameters: slots below it are path parameters, the rest query ones.
    var pathParameterCount: Int { pathParameters.count }

    /// The name of the parameter in `slot` (path parameters first, then query parameters).
    func parameterName(slot: Int) -> String {
        slot < pathParameters.count ? pathParameters[slot].name : query[slot - pathParameters.count].name
    }

    /// The public description of the parameter in `slot` with a value.
    func parameter(slot: Int, value: String) -> Parameter {
        if slot < pathParameters.count {
            let spec = pathParameters[slot]
            return Parameter(name: spec.name, kind: spec.type.kind, value: value, fromQuery: false)
        }
        let spec = query[slot - pathParameters.count]
        return Parameter(name: spec.name, kind: spec.type.kind, value: value, fromQuery: true)
    }

    var route: Route {
        Route(
            name: name, pattern: pattern, screen: screen, entityType: entityType,
            queryParameters: query.map {
                QueryParameter(name: $0.name, kind: $0.type.kind, values: $0.type.values, defaultValue: $0.defaultValue)
            })
    }
}

/// A route read from JSON, before precedence order is known.
struct RouteDraft: Sendable {
    var name: String
    var pattern: String
    var screen: String
    var entityType: String?
    var segments: [PatternSegment]
    var query: [RouteInfo.QuerySpec]

    var rank: [UInt8] { segments.map(\.rankClass) }

    /// Precedence: rank vectors compared segment by segment (static < typed < untyped < catch-all),
    /// a vector before its extensions; ties broken by pattern and name so the order never depends
    /// on declaration order.
    static func precedes(_ a: RouteDraft, _ b: RouteDraft) -> Bool {
        let (ra, rb) = (a.rank, b.rank)
        if ra != rb { return ra.lexicographicallyPrecedes(rb) }
        if a.pattern != b.pattern { return a.pattern < b.pattern }
        return a.name < b.name
    }
}
