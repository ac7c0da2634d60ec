public import DeepLinkRouter
public import SearchAPI

// The route reports of `routes explain` and `routes check`, as API messages: one form whether
// the command asks a server or works on files in its own process.

extension SearchAPI.RouteExplanation {
    /// How `url` resolves on `router`, with at most `limit` candidate routes.
    public init(explaining url: String, on router: Router, limit: Int) {
        let explanation = router.explain(url: url, limit: limit)
        let outcome: String
        let detail: String
        switch explanation.resolution {
        case .destination(let destination):
            outcome = "matched"
            detail = "route \(destination.routeName) (screen \(destination.screen))"
        case .fallback(let destination):
            outcome = "fallback"
            detail = destination.fallbackReason ?? ""
        case .refused(let refusal):
            outcome = "refused"
            detail = refusal.message
        }
        self.init(
            outcome: outcome, detail: detail, path: explanation.path ?? "",
            candidates: explanation.candidates.map {
                RouteCandidate(
                    route: $0.routeName, pattern: $0.pattern, matchedSegments: UInt32(clamping: $0.matchedSegments),
                    reason: $0.reason)
            })
    }
}

extension SearchAPI.RouteCheck {
    /// `router`'s table against a catalog of `entityCount` entities of `entityTypes`.
    public init(router: Router, entityTypes: some Sequence<String>, entityCount: Int) {
        var routeByType: [String: Route] = [:]
        for route in router.routes {
            if let type = route.entityType { routeByType[type] = route }
        }
        self.init(
            routeCount: UInt32(clamping: router.routes.count), entityCount: UInt64(entityCount),
            types: Set(entityTypes).sorted().map { type in
                TypeRoute(type: type, route: routeByType[type]?.name ?? "", pattern: routeByType[type]?.pattern ?? "")
            })
    }

    /// The types no route opens, sorted.
    public var missingTypes: [String] { types.filter(\.route.isEmpty).map(\.type) }
}
