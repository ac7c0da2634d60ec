extension Router {
    /// The canonical links of a destination (reverse routing).
    ///
    /// Resolving either link gives the destination back: values are percent-encoded so that
    /// `/`, `%`, `+`, spaces, Unicode and empty strings survive.
    ///
    /// - Parameter destination: A destination this router produced.
    /// - Returns: The app-scheme URL and the universal link.
    /// - Throws: `LinkError` when a value does not fit its parameter.
    public func link(for destination: Destination) throws(LinkError) -> Link {
        try Link.make(info: destination.info, value: destination.parameters.value(forSlot:))
    }

    /// The canonical links of an entity (an open-intent target).
    ///
    /// - Parameters:
    ///   - entityType: The entity type, such as `album`.
    ///   - id: The entity id.
    /// - Returns: The app-scheme URL and the universal link.
    /// - Throws: `LinkError` for an unknown type or an invalid id.
    public func link(entityType: String, id: String) throws(LinkError) -> Link {
        try Link.make(info: entityRoute(entityType), value: { $0 == 0 ? id : nil })
    }

    /// The canonical URL of an entity: the app-scheme URL when the table has a scheme, otherwise
    /// the universal link.
    ///
    /// What a search result carries; cheaper than ``link(entityType:id:)`` as it builds one
    /// string (one allocation) instead of two.
    ///
    /// - Parameters:
    ///   - entityType: The entity type, such as `album`.
    ///   - id: The entity id.
    /// - Returns: The canonical URL.
    /// - Throws: `LinkError` for an unknown type or an invalid id.
    public func canonicalURL(entityType: String, id: String) throws(LinkError) -> String {
        try Link.canonicalURL(info: entityRoute(entityType), value: { $0 == 0 ? id : nil })
    }

    /// The route that opens an entity type.
    private func entityRoute(_ entityType: String) throws(LinkError) -> RouteInfo {
        guard let index = core.entityRouteIndex(entityType) else {
            throw LinkError(code: .unknownEntityType, message: "no route opens entity type \"\(entityType)\"")
        }
        return core.infos[index]
    }

    /// The canonical links of a named route with parameter values.
    ///
    /// - Parameters:
    ///   - route: The route's name.
    ///   - parameters: Values by parameter name (path and query); query values equal to their
    ///     default are left out of the link.
    /// - Returns: The app-scheme URL and the universal link.
    /// - Throws: `LinkError` for an unknown route or parameter, a missing or invalid value.
    public func link(route: String, parameters: [String: String]) throws(LinkError) -> Link {
        guard let info = table.infos.first(where: { $0.name == route }) else {
            throw LinkError(code: .unknownRoute, message: "no route is named \"\(route)\"")
        }
        let route = "route \"\(info.name)\""
        for name in parameters.keys.sorted()
        where !info.pathParameters.contains(where: { $0.name == name })
            && !info.query.contains(where: { $0.name == name })
        {
            throw LinkError(code: .unknownParameter, message: "\(route) has no parameter \"\(name)\"")
        }
        return try Link.make(info: info, value: { parameters[info.parameterName(slot: $0)] })
    }
}
