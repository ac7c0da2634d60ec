/// How a URL relates to the routes: what it resolves to and which routes came closest.
public struct Explanation: Hashable, Sendable {
    /// One route's verdict on the URL.
    public struct Candidate: Hashable, Sendable {
        /// The route's name.
        public var routeName: String
        /// Its pattern.
        public var pattern: String
        /// How many leading path segments the route matched.
        public var matchedSegments: Int
        /// Why the route did not match, or that it matched.
        public var reason: String
    }

    /// What resolving the URL gives.
    public var resolution: Resolution
    /// The decoded path that was routed, when the URL got that far.
    public var path: String?
    /// The closest routes, best first.
    public var candidates: [Candidate]
}

extension Router {
    /// Explains how a URL resolves: for a URL that did not match, the routes that came closest
    /// and why each failed.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - limit: How many candidates to return.
    /// - Returns: The resolution and the closest routes.
    public func explain(url: String, limit: Int = 3) -> Explanation {
        let resolution = resolve(url: url)
        let path: String?
        do {
            path = try URLCore.withParsed(url, maxLength: maxURLLength) { bytes, layout -> String? in
                guard case .success(let range) = routingPath(bytes, layout) else { return nil }
                return String(decoding: bytes[range], as: UTF8.self)
            }
        } catch {
            path = nil
        }
        guard let path else { return Explanation(resolution: resolution, path: nil, candidates: []) }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map { decodeText(String($0)) }
        let chosen: String? = if case .destination(let destination) = resolution { destination.routeName } else { nil }
        var candidates: [(Explanation.Candidate, Int)] = []
        for info in table.infos {
            var verdict = verdictFor(info, segments)
            if verdict.reason == nil, table.trailingSlash == .ignore, segments.count > 1, segments.last == "" {
                segments.removeLast()
                let stripped = verdictFor(info, segments)
                segments.append("")
                if stripped.reason == nil { verdict = stripped }
            }
            let reason: String
            if let failure = verdict.reason {
                reason = failure
            } else if info.name == chosen {
                reason = "matches (chosen)"
            } else {
                reason = "matches, but \"\(chosen ?? "")\" takes precedence"
            }
            candidates.append(
                (
                    Explanation.Candidate(
                        routeName: info.name, pattern: info.pattern, matchedSegments: verdict.matched, reason: reason),
                    info.index
                ))
        }
        candidates.sort {
            let aMatches = $0.0.reason.hasPrefix("matches")
            let bMatches = $1.0.reason.hasPrefix("matches")
            if aMatches != bMatches { return aMatches }
            if $0.0.matchedSegments != $1.0.matchedSegments { return $0.0.matchedSegments > $1.0.matchedSegments }
            return $0.1 < $1.1
        }
        return Explanation(
            resolution: resolution, path: "/" + segments.joined(separator: "/"),
            candidates: candidates.prefix(limit).map(\.0))
    }

    private func decodeText(_ text: String) -> String {
        var bytes = Array(text.utf8)
        let count = bytes.count
        let length = bytes.withUnsafeMutableBufferPointer {
            percentDecode($0.baseAddress!, count, into: $0.baseAddress!)
        }
        return String(decoding: bytes[..<length], as: UTF8.self)
    }

    private func verdictFor(_ info: RouteInfo, _ segments: [String]) -> (matched: Int, reason: String?) {
        for (position, segment) in info.segments.enumerated() {
            if case .parameter(_, let type) = segment, type.kind == .catchAll { return (position, nil) }
            guard position < segments.count else {
                return (
                    position,
                    "the path ends after \(segments.count) segment\(segments.count == 1 ? "" : "s"); the pattern has \(info.segments.count)"
                )
            }
            let actual = segments[position]
            switch segment {
            case .literal(let text):
                if actual != text {
                    return (
                        position, "segment \(position + 1) is \(actual.debugDescription), not \(text.debugDescription)"
                    )
                }
            case .parameter(let name, let type):
                if !type.accepts(actual) {
                    return (
                        position,
                        "segment \(position + 1) \(actual.debugDescription) is not a valid \(type.spelling) for {\(name)}"
                    )
                }
            }
        }
        if segments.count > info.segments.count {
            return (
                info.segments.count,
                "the path has \(segments.count) segments; the pattern has \(info.segments.count)"
            )
        }
        return (info.segments.count, nil)
    }
}
