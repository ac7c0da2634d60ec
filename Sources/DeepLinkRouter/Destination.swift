/// A typed parameter of a destination.
public struct Parameter: Hashable, Sendable, CustomStringConvertible {
    /// The name in the route pattern or query.
    public var name: String
    /// Its declared type.
    public var kind: ParameterKind
    /// The percent-decoded value.
    public var value: String
    /// Whether it came from the query string (or its default) rather than the path.
    public var fromQuery: Bool

    /// Creates a parameter.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - kind: Its type.
    ///   - value: Its decoded value.
    ///   - fromQuery: Whether it belongs to the query string.
    public init(name: String, kind: ParameterKind, value: String, fromQuery: Bool) {
        self.name = name
        self.kind = kind
        self.value = value
        self.fromQuery = fromQuery
    }

    /// The value as an integer, for `.int` parameters.
    public var intValue: Int? { kind == .int ? Int(value) : nil }

    public var description: String { "\(name)=\(value)" }
}

/// An entity an open-intent target names: its type and id.
public struct EntityReference: Hashable, Sendable {
    /// The entity type, such as `album`.
    public var type: String
    /// The entity id as the route's id parameter holds it.
    public var id: String

    /// Creates a reference.
    ///
    /// - Parameters:
    ///   - type: The entity type.
    ///   - id: The entity id.
    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }
}

/// Where a URL or an open-intent target leads: a screen with typed parameters.
///
/// Resolving never loads content: a destination only says what to open. It refers to its
/// route's shared description rather than copying names, and keeps its parameters inline (see
/// ``Parameters``), so resolving a typical URL does not allocate.
public struct Destination: Hashable, Sendable, CustomStringConvertible {
    /// The path parameters in pattern order, then the query parameters by name.
    public let parameters: Parameters
    /// Why the URL fell back to this destination, or `nil` when a route matched it.
    public let fallbackReason: String?

    init(parameters: Parameters, fallbackReason: String? = nil) {
        self.parameters = parameters
        self.fallbackReason = fallbackReason
    }

    /// The route the destination was resolved through.
    var info: RouteInfo { parameters.info }
    /// The screen to open.
    public var screen: String { info.screen }
    /// The name of the route that produced this destination.
    public var routeName: String { info.name }
    /// The pattern of that route, such as `/album/{id:slug}`.
    public var routePattern: String { info.pattern }
    /// Whether this is the fallback for a URL no route matched.
    public var isFallback: Bool { fallbackReason != nil }

    /// The entity the destination shows, when its route opens an entity type.
    public var entity: EntityReference? {
        // An entity route's id is its first path parameter (slot 0).
        guard let type = info.entityType, let id = parameters.value(forSlot: 0) else { return nil }
        return EntityReference(type: type, id: id)
    }

    /// The parameter with this name, if any.
    ///
    /// - Parameter name: The parameter's name.
    /// - Returns: The parameter, or `nil`.
    public func parameter(_ name: String) -> Parameter? {
        parameters.first { $0.name == name }
    }

    /// The canonical link: the app-scheme URL when the table has a scheme, otherwise the
    /// universal link. Resolving it gives this destination back (without the fallback flag).
    public var canonicalURL: String {
        (try? Link.canonicalURL(info: info, value: parameters.value(forSlot:))) ?? ""
    }

    public static func == (lhs: Destination, rhs: Destination) -> Bool {
        lhs.info === rhs.info && lhs.parameters == rhs.parameters && lhs.fallbackReason == rhs.fallbackReason
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(info.name)
        hasher.combine(parameters)
        hasher.combine(fallbackReason)
    }

    public var description: String {
        let list = parameters.map(\.description).joined(separator: ", ")
        return "\(screen)(\(list))" + (fallbackReason.map { " [fallback: \($0)]" } ?? "")
    }
}
