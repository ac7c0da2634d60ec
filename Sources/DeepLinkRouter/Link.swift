/// The canonical links of a destination.
public struct Link: Hashable, Sendable {
    /// The app-scheme URL (`music://album/abbey-road`), when the table has a scheme.
    public var appURL: String?
    /// The universal link (`https://music.example.com/album/abbey-road`), when the table has a host.
    public var universalURL: String?

    /// Creates a pair of links.
    ///
    /// - Parameters:
    ///   - appURL: The app-scheme URL.
    ///   - universalURL: The universal link.
    public init(appURL: String?, universalURL: String?) {
        self.appURL = appURL
        self.universalURL = universalURL
    }

    /// The preferred URL: the app-scheme one, otherwise the universal link.
    public var canonicalURL: String { appURL ?? universalURL ?? "" }

    /// Builds both links for a route, validating every value.
    ///
    /// - Parameters:
    ///   - info: The route.
    ///   - value: The value of the route's parameter in a slot (path parameters in pattern order,
    ///     then query parameters by name), or `nil` when it has none.
    static func make(info: RouteInfo, value: (Int) -> String?) throws(LinkError) -> Link {
        try validate(info: info, value: value)
        return Link(
            appURL: info.appLink.map { LinkWriter.url($0, info: info, value: value) },
            universalURL: info.universalLink.map { LinkWriter.url($0, info: info, value: value) })
    }

    /// Builds only the preferred link, the one a search result carries: one allocation.
    static func canonicalURL(info: RouteInfo, value: (Int) -> String?) throws(LinkError) -> String {
        try validate(info: info, value: value)
        guard let template = info.appLink ?? info.universalLink else { return "" }
        return LinkWriter.url(template, info: info, value: value)
    }

    /// Throws for the first path parameter without a value and the first value that does not
    /// fit its parameter, in slot order.
    static func validate(info: RouteInfo, value: (Int) -> String?) throws(LinkError) {
        // Indices rather than elements: copying a parameter's description would retain its strings.
        for slot in 0..<info.pathParameterCount {
            guard let text = value(slot) else {
                let name = info.pathParameters[slot].name
                throw LinkError(
                    code: .missingParameter, message: "route \"\(info.name)\" needs a value for \"\(name)\"")
            }
            let kind = info.pathKinds[slot]
            let accepted =
                kind.isPlainToken
                ? withUTF8Bytes(text) { ParameterType(kind: kind).accepts($0) }
                : valueProblem(text, type: info.pathParameters[slot].type, inPath: true) == nil
            if !accepted {
                let spec = info.pathParameters[slot]
                throw invalid(text, spec.name, info, valueProblem(text, type: spec.type, inPath: true) ?? "")
            }
        }
        for position in 0..<info.query.count {
            guard let text = value(info.pathParameterCount + position), text != info.query[position].defaultValue
            else { continue }
            let spec = info.query[position]
            if let problem = valueProblem(text, type: spec.type, inPath: false) {
                throw invalid(text, spec.name, info, problem)
            }
        }
    }

    private static func invalid(_ value: String, _ name: String, _ info: RouteInfo, _ problem: String) -> LinkError {
        LinkError(
            code: .invalidValue,
            message: "parameter \"\(name)\" of route \"\(info.name)\": \(value.debugDescription) \(problem)")
    }

    /// Why `value` cannot be a value of `type`, or `nil` when it can.
    ///
    /// Works on the UTF-8 bytes: types, control characters (which UTF-8 only holds as single
    /// bytes) and dot segments are all ASCII questions.
    static func valueProblem(_ value: String, type: ParameterType, inPath: Bool) -> String? {
        withUTF8Bytes(value) { bytes in
            if !type.accepts(bytes) { return "is not a valid \(type.spelling)" }
            for byte in bytes where byte < 0x20 || byte == 0x7F { return "contains control characters" }
            guard inPath else { return nil }
            return dotSegmentProblem(bytes, catchAll: type.kind == .catchAll)
        }
    }

    /// Refuses `.` and `..` as a whole segment (for a catch-all: as any `/`-separated piece),
    /// and `..` between `/` or `\` anywhere, which a server would read as a parent directory.
    static func dotSegmentProblem(_ bytes: UnsafeBufferPointer<UInt8>, catchAll: Bool) -> String? {
        var slashPieceStart = 0
        var pieceStart = 0
        var parentSegment = false
        for position in 0...bytes.count {
            let byte: UInt8 = position == bytes.count ? 0x2F : bytes[position]
            if byte == 0x2F || byte == 0x5C {
                let length = position - pieceStart
                if length == 2 && bytes[pieceStart] == 0x2E && bytes[pieceStart + 1] == 0x2E { parentSegment = true }
                pieceStart = position + 1
            }
            if byte == 0x2F && (catchAll || position == bytes.count) {
                let length = position - slashPieceStart
                let isDots =
                    (length == 1 && bytes[slashPieceStart] == 0x2E)
                    || (length == 2 && bytes[slashPieceStart] == 0x2E && bytes[slashPieceStart + 1] == 0x2E)
                // A non-catch-all value is one segment: only the whole value counts.
                if isDots && (catchAll || slashPieceStart == 0) { return "cannot be a path segment" }
                slashPieceStart = position + 1
            }
        }
        return parentSegment ? "contains a \"..\" segment" : nil
    }
}

/// Calls `body` with the UTF-8 bytes of `string`, copying only when it is not stored
/// contiguously (a small string is copied to the stack).
@inline(__always)
func withUTF8Bytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return copy.withUTF8(body)
}
