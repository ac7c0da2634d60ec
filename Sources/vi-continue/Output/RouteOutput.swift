import SearchAPI

/// How route answers (destinations and links) read, as tables and as JSON.
enum RouteOutput {
    /// A destination as JSON, with the input it came from.
    static func json(_ destination: Destination, input: String) -> JSONValue {
        .object([
            ("input", .string(input)),
            ("screen", .string(destination.screen)),
            ("route", .string(destination.route)),
            ("entity", destination.entity.map(json) ?? .null),
            ("params", .array(destination.params.map(json))),
            ("canonical_url", .string(destination.canonicalURL)),
            ("fallback", .bool(destination.fallback)),
            ("fallback_reason", destination.fallback ? .string(destination.fallbackReason) : .null),
        ])
    }

    /// A destination as aligned fields.
    static func text(_ destination: Destination) -> String {
        var fields = FieldList()
        if destination.fallback {
            fields.append("fallback", "yes: " + destination.fallbackReason)
        }
        fields.append("screen", destination.screen)
        fields.append("route", destination.route)
        fields.append("entity", destination.entity.map(text) ?? "")
        fields.append("params", destination.params.map(text).joined(separator: ", "))
        fields.append("canonical url", destination.canonicalURL)
        return fields.rendered
    }

    /// The canonical URLs of an entity as JSON.
    static func json(_ link: LinkResponse, entity: EntityRef) -> JSONValue {
        .object([
            ("entity", json(entity)),
            ("url", .string(link.url)),
            ("app_url", link.appURL.isEmpty ? .null : .string(link.appURL)),
            ("universal_url", link.universalURL.isEmpty ? .null : .string(link.universalURL)),
        ])
    }

    /// The canonical URLs of an entity as aligned fields.
    static func text(_ link: LinkResponse) -> String {
        var fields = FieldList()
        fields.append("url", link.url)
        fields.append("app url", link.appURL)
        fields.append("universal url", link.universalURL)
        return fields.rendered
    }

    static func json(_ entity: EntityRef) -> JSONValue {
        .object([("type", .string(entity.type)), ("id", .string(entity.id))])
    }

    /// `type:id`, the way the command line writes an entity.
    static func text(_ entity: EntityRef) -> String {
        "\(entity.type):\(entity.id)"
    }

    static func json(_ param: Param) -> JSONValue {
        let value: JSONValue =
            switch param.value {
            case .intValue(let number): .int(number)
            case .stringValue(let string): .string(string)
            case nil: .null
            }
        return .object([
            ("name", .string(param.name)), ("kind", .string(kindName(param.kind))), ("value", value),
            ("from_query", .bool(param.fromQuery)),
        ])
    }

    /// `name=value (kind)`, with `query` for a query parameter.
    static func text(_ param: Param) -> String {
        let value: String =
            switch param.value {
            case .intValue(let number): String(number)
            case .stringValue(let string): string.debugDescription
            case nil: "-"
            }
        return "\(param.name)=\(value) (\(kindName(param.kind))\(param.fromQuery ? ", query" : ""))"
    }

    static func kindName(_ kind: ParamKind) -> String {
        switch kind {
        case .int: "int"
        case .uuid: "uuid"
        case .slug: "slug"
        case .enum: "enum"
        case .string: "string"
        case .catchAll: "catch_all"
        case .unspecified: "unspecified"
        case .unrecognized(let value): "unrecognized(\(value))"
        }
    }
}
