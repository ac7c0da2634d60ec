internal import JSONReading

/// A validated route table: app schemes, universal-link hosts, routes and the fallback.
///
/// Loading checks every pattern and parameter type, that route names and entity types are
/// unique, and that no two routes of equal rank can match one URL (the error names both and
/// gives such a URL). The format is described in `RouteTableFormat.md`.
public struct RouteTable: Sendable {
    /// The app's own URL schemes, lower-cased; the first is used for generated links.
    public let schemes: [String]
    /// The https hosts allowed for universal links, lower-cased; the first is used for generated links.
    public let hosts: [String]
    /// How a trailing `/` is treated.
    public let trailingSlash: TrailingSlashPolicy
    /// The name of the route that unknown URLs fall back to, if any.
    public let fallbackRoute: String?
    /// The parameter of the fallback route that receives what could be read from the URL.
    public let fallbackParameter: String?
    let infos: [RouteInfo]

    /// The routes in precedence order.
    public var routes: [Route] { infos.map(\.route) }

    /// Loads a table from its JSON text.
    ///
    /// - Parameter json: The UTF-8 bytes of the JSON document.
    /// - Throws: `RouteTableError` naming the route and the problem.
    public init(json: [UInt8]) throws(RouteTableError) {
        let document: JSON
        do {
            document = try JSON.parse(json)
        } catch {
            var line = 1
            var column = 1
            for byte in json.prefix(error.offset) {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            throw RouteTableError(
                code: .invalidJSON, message: "invalid JSON at line \(line), column \(column): \(error.message)")
        }
        try self.init(document: document)
    }

    /// Loads a table from JSON text held in a string.
    ///
    /// - Parameter jsonString: The JSON document.
    /// - Throws: `RouteTableError` naming the route and the problem.
    public init(jsonString: String) throws(RouteTableError) {
        try self.init(json: Array(jsonString.utf8))
    }

    private static func field(_ message: String) -> RouteTableError {
        RouteTableError(code: .invalidField, message: message)
    }

    private static func strings(_ value: JSON?, _ name: String) throws(RouteTableError) -> [String] {
        guard let value else { return [] }
        guard case .array(let elements) = value else { throw field("\"\(name)\" must be an array of strings") }
        var result: [String] = []
        for element in elements {
            guard case .string(let string) = element else { throw field("\"\(name)\" must be an array of strings") }
            result.append(string)
        }
        return result
    }

    init(document: JSON) throws(RouteTableError) {
        guard case .object(let members) = document else { throw Self.field("the route table must be an object") }
        let known: Set = ["version", "schemes", "hosts", "trailingSlash", "routes", "fallback"]
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw Self.field("unknown field \"\(unknown.0)\"")
        }
        if let version = document["version"], version != .number(1) {
            throw Self.field("unsupported version (only 1 is known)")
        }
        let schemes = try Self.strings(document["schemes"], "schemes").map { $0.lowercased() }
        for scheme in schemes {
            let valid =
                scheme.first.map { $0.isASCII && $0.isLetter } == true
                && scheme.utf8.allSatisfy {
                    isASCIIAlpha($0) || isASCIIDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
                }
            if !valid { throw Self.field("invalid scheme \"\(scheme)\"") }
            if ["http", "https", "ws", "wss", "ftp", "file", "javascript", "data"].contains(scheme) {
                throw Self.field("scheme \"\(scheme)\" cannot be an app scheme")
            }
        }
        let hosts = try Self.strings(document["hosts"], "hosts").map { $0.lowercased() }
        for host in hosts {
            let parsed = try? URLParser().parse("https://\(host)/")
            if parsed?.hostname != host || parsed?.port != "" {
                throw Self.field("invalid host \"\(host)\"")
            }
        }
        if schemes.isEmpty && hosts.isEmpty { throw Self.field("the table needs at least one scheme or host") }
        switch document["trailingSlash"] {
        case nil, .string("ignore")?: trailingSlash = .ignore
        case .string("strict")?: trailingSlash = .strict
        default: throw Self.field("\"trailingSlash\" must be \"ignore\" or \"strict\"")
        }
        guard case .array(let routeValues)? = document["routes"] else {
            throw Self.field("\"routes\" must be an array")
        }
        var drafts: [RouteDraft] = []
        for (position, value) in routeValues.enumerated() {
            drafts.append(try Self.draft(value, position: position))
        }
        var names: Set<String> = []
        var entities: [String: String] = [:]
        for draft in drafts {
            if !names.insert(draft.name).inserted {
                throw RouteTableError(code: .duplicateRoute, message: "two routes are named \"\(draft.name)\"")
            }
            if let entity = draft.entityType {
                if let other = entities[entity] {
                    throw RouteTableError(
                        code: .duplicateEntity,
                        message: "routes \"\(other)\" and \"\(draft.name)\" both open entity type \"\(entity)\"")
                }
                entities[entity] = draft.name
            }
        }
        drafts.sort(by: RouteDraft.precedes)
        if let conflict = findConflict(drafts) {
            let a = drafts[conflict.first]
            let b = drafts[conflict.second]
            let example = exampleURL(segments: conflict.example, scheme: schemes.first, host: hosts.first)
            throw RouteTableError(
                code: .conflict,
                message:
                    "routes \"\(a.name)\" (\(a.pattern)) and \"\(b.name)\" (\(b.pattern)) conflict: both match \(example)"
            )
        }
        self.schemes = schemes
        self.hosts = hosts
        infos = drafts.enumerated().map {
            RouteInfo(draft: $0.element, index: $0.offset, appScheme: schemes.first, universalHost: hosts.first)
        }
        switch document["fallback"] {
        case nil, .null?:
            fallbackRoute = nil
            fallbackParameter = nil
        case .object?:
            guard case .string(let route)? = document["fallback"]?["route"] else {
                throw Self.field("\"fallback\" needs a \"route\" name")
            }
            guard let info = infos.first(where: { $0.name == route }) else {
                throw Self.field("fallback route \"\(route)\" does not exist")
            }
            if !info.pathParameters.isEmpty {
                throw Self.field("fallback route \"\(route)\" must not have path parameters")
            }
            fallbackRoute = route
            switch document["fallback"]?["parameter"] {
            case nil: fallbackParameter = nil
            case .string(let parameter)?:
                guard let spec = info.query.first(where: { $0.name == parameter }), spec.type.kind == .string else {
                    throw Self.field(
                        "fallback parameter \"\(parameter)\" must be a string query parameter of route \"\(route)\"")
                }
                fallbackParameter = parameter
            default: throw Self.field("\"fallback.parameter\" must be a string")
            }
        default: throw Self.field("\"fallback\" must be an object")
        }
    }

    private static func draft(_ value: JSON, position: Int) throws(RouteTableError) -> RouteDraft {
        guard case .object(let members) = value else { throw field("route #\(position + 1) must be an object") }
        guard case .string(let pattern)? = value["pattern"] else {
            throw field("route #\(position + 1) needs a \"pattern\" string")
        }
        var name = pattern
        if let nameValue = value["name"] {
            guard case .string(let string) = nameValue, !string.isEmpty else {
                throw field("route \"\(pattern)\": \"name\" must be a non-empty string")
            }
            name = string
        }
        let known: Set = ["name", "pattern", "screen", "entity", "query"]
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw field("route \"\(name)\": unknown field \"\(unknown.0)\"")
        }
        guard case .string(let screen)? = value["screen"], !screen.isEmpty else {
            throw field("route \"\(name)\" needs a \"screen\" string")
        }
        let segments: [PatternSegment]
        switch parsePattern(pattern) {
        case .success(let parsed): segments = parsed
        case .failure(let reason):
            throw RouteTableError(
                code: .invalidPattern, message: "route \"\(name)\": invalid pattern \"\(pattern)\": \(reason.reason)")
        }
        var entityType: String? = nil
        if let entityValue = value["entity"] {
            guard case .string(let entity) = entityValue, !entity.isEmpty else {
                throw field("route \"\(name)\": \"entity\" must be a non-empty string")
            }
            let parameters = segments.filter { if case .parameter = $0 { true } else { false } }
            if parameters.count != 1 {
                throw field("route \"\(name)\": an entity route needs exactly one path parameter (the id)")
            }
            entityType = entity
        }
        var query: [RouteInfo.QuerySpec] = []
        if let queryValue = value["query"] {
            guard case .object(let entries) = queryValue else {
                throw field("route \"\(name)\": \"query\" must be an object")
            }
            for (key, spec) in entries {
                guard !key.isEmpty else { throw field("route \"\(name)\": a query parameter needs a name") }
                if segments.contains(where: { if case .parameter(key, _) = $0 { true } else { false } }) {
                    throw field("route \"\(name)\": \"\(key)\" is both a path and a query parameter")
                }
                var typeText = "string"
                var defaultValue: String? = nil
                switch spec {
                case .string(let text): typeText = text
                case .object:
                    if case .string(let text)? = spec["type"] { typeText = text }
                    switch spec["default"] {
                    case nil: break
                    case .string(let text)?: defaultValue = text
                    case .number(let number)? where number == number.rounded() && abs(number) < 1e15:
                        defaultValue = String(Int(number))
                    default: throw field("route \"\(name)\": default of \"\(key)\" must be a string")
                    }
                default: throw field("route \"\(name)\": query parameter \"\(key)\" must be a type or an object")
                }
                guard let type = ParameterType(parsing: Substring(typeText)) else {
                    throw RouteTableError(
                        code: .invalidPattern,
                        message: "route \"\(name)\": unknown type \"\(typeText)\" for query parameter \"\(key)\"")
                }
                if let defaultValue, !type.accepts(defaultValue) {
                    throw field(
                        "route \"\(name)\": default \"\(defaultValue)\" of \"\(key)\" is not a valid \(type.spelling)")
                }
                query.append(RouteInfo.QuerySpec(name: key, type: type, defaultValue: defaultValue))
            }
        }
        query.sort { $0.name < $1.name }
        return RouteDraft(
            name: name, pattern: pattern, screen: screen, entityType: entityType, segments: segments, query: query)
    }
}

/// Renders a URL for decoded path segments: the app scheme when there is one (its first segment
/// as the authority), otherwise a universal link.
func exampleURL(segments: [String], scheme: String?, host: String?) -> String {
    var bytes: [UInt8] = []
    if let scheme {
        bytes.append(contentsOf: "\(scheme)://".utf8)
    } else {
        bytes.append(contentsOf: "https://\(host ?? "example.com")/".utf8)
    }
    for (position, segment) in segments.enumerated() {
        if position > 0 { bytes.append(0x2F) }
        let keep = position == 0 && scheme != nil ? ByteSets.authoritySegmentKeep : ByteSets.segmentKeep
        percentEncode(segment.utf8, keeping: keep, into: &bytes)
    }
    return String(decoding: bytes, as: UTF8.self)
}
