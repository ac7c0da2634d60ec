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
        try Link.make(info: destination.info, parameters: destination.parameters)
    }

    /// The canonical links of an entity (an open-intent target).
    ///
    /// - Parameters:
    ///   - entityType: The entity type, such as `album`.
    ///   - id: The entity id.
    /// - Returns: The app-scheme URL and the universal link.
    /// - Throws: `LinkError` for an unknown type or an invalid id.
    public func link(entityType: String, id: String) throws(LinkError) -> Link {
        guard let index = entityRoutes[entityType] else {
            throw LinkError(code: .unknownEntityType, message: "no route opens entity type \"\(entityType)\"")
        }
        let info = table.infos[index]
        return try Link.make(info: info, values: [info.pathParameters[0].name: id])
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
        return try Link.make(info: info, values: parameters)
    }
}
