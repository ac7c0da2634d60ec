import SearchAPI

/// The `type:id` arguments of `open`, `link` and `catalog delete`.
enum EntityArgument {
    /// Schemes that make an argument a URL even without `//` (`javascript:alert(1)` must be
    /// resolved, and refused, as the URL it is, not read as the entity type "javascript").
    static let urlSchemes: Set<String> = [
        "http", "https", "ws", "wss", "ftp", "file", "javascript", "data", "vbscript", "blob", "about", "mailto",
        "tel", "sms",
    ]

    /// Reads `type:id`; the id may itself hold colons.
    ///
    /// - Throws: ``CommandFailure`` (usage) naming the argument when it is not `type:id`.
    static func parse(_ argument: String) throws(CommandFailure) -> EntityRef {
        guard let colon = argument.firstIndex(of: ":"), colon != argument.startIndex,
            argument.index(after: colon) != argument.endIndex
        else {
            throw .usage("'\(argument)' is not type:id (for example album:abbey-road)")
        }
        return EntityRef(type: String(argument[..<colon]), id: String(argument[argument.index(after: colon)...]))
    }

    /// Whether an `open` argument is a URL rather than `type:id`: it has `://`, or its scheme is
    /// one browsers know.
    static func isURL(_ argument: String) -> Bool {
        if argument.contains("://") { return true }
        guard let colon = argument.firstIndex(of: ":") else { return false }
        return urlSchemes.contains(argument[..<colon].lowercased())
    }
}
