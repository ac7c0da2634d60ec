/// A URL parser that follows the WHATWG URL Standard, working on UTF-8 bytes.
///
/// It accepts absolute URLs only (there is never a base URL), handles special schemes (`http`,
/// `https`, `ws`, `wss`, `ftp`, `file`) and non-special ones (app schemes such as `music:`)
/// as browsers do: percent-encode sets, IPv4 forms, IPv6, forbidden host code points,
/// lower-casing, dot segments, backslashes, credentials and default ports. Non-ASCII host names
/// would need IDNA and are refused with `URLParseError.Code.unsupportedIDNA`.
public struct URLParser: Sendable {
    /// Inputs longer than this many UTF-8 bytes are refused with `.tooLong`.
    public var maxLength: Int

    /// Creates a parser.
    ///
    /// - Parameter maxLength: The longest input accepted, in UTF-8 bytes.
    public init(maxLength: Int = 1 << 20) {
        self.maxLength = maxLength
    }

    /// Parses an absolute URL.
    ///
    /// - Parameter input: The URL as received; leading and trailing spaces and C0 controls are
    ///   stripped, tabs and newlines removed, as the Standard says.
    /// - Returns: The parsed URL with the Standard's components.
    /// - Throws: `URLParseError` when the Standard's parser returns failure (or IDNA is needed).
    public func parse(_ input: String) throws(URLParseError) -> ParsedURL {
        try URLCore.withParsed(input, maxLength: maxLength) { bytes, layout in
            ParsedURL(href: String(decoding: bytes, as: UTF8.self), layout: layout)
        }
    }
}

/// A URL parsed by `URLParser`, exposing the WHATWG components as the URL API names them.
public struct ParsedURL: Hashable, Sendable, CustomStringConvertible {
    /// The serialized URL.
    public let href: String
    let layout: URLLayout

    init(href: String, layout: URLLayout) {
        self.href = href
        self.layout = layout
    }

    private func slice(_ start: Int, _ end: Int) -> String {
        let utf8 = href.utf8
        return String(
            decoding: utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)],
            as: UTF8.self)
    }

    /// The lower-cased scheme without the colon.
    public var scheme: String { slice(0, layout.schemeEnd) }
    /// The scheme followed by `:`.
    public var `protocol`: String { scheme + ":" }
    /// The percent-encoded user name, or empty.
    public var username: String { slice(layout.usernameStart, layout.usernameEnd) }
    /// The percent-encoded password, or empty.
    public var password: String { slice(layout.passwordStart, layout.passwordEnd) }
    /// The serialized host, or empty when there is none.
    public var hostname: String { layout.hasHost ? slice(layout.hostStart, layout.hostEnd) : "" }
    /// The host and, when not the scheme's default, `:` and the port.
    public var host: String { layout.port >= 0 ? hostname + ":" + port : hostname }
    /// The port in decimal, or empty when absent or the scheme's default.
    public var port: String { layout.port >= 0 ? String(layout.port) : "" }
    /// Whether the URL has a host (possibly empty), as opposed to none at all.
    public var hasHost: Bool { layout.hasHost }
    /// The path (an opaque path as is, otherwise `/`-separated segments).
    public var pathname: String { slice(layout.pathStart, layout.pathEnd) }
    /// `?` and the query, or empty when the query is absent or empty.
    public var search: String {
        layout.queryStart >= 0 && layout.queryEnd > layout.queryStart
            ? "?" + slice(layout.queryStart, layout.queryEnd) : ""
    }
    /// `#` and the fragment, or empty when the fragment is absent or empty.
    public var hash: String {
        layout.fragmentStart >= 0 && layout.end > layout.fragmentStart
            ? "#" + slice(layout.fragmentStart, layout.end) : ""
    }

    /// The components in the order of the Standard's URL API.
    public var components: [(name: String, value: String)] {
        [
            ("href", href), ("protocol", `protocol`), ("username", username), ("password", password),
            ("host", host), ("hostname", hostname), ("port", port), ("pathname", pathname),
            ("search", search), ("hash", hash),
        ]
    }

    public var description: String { href }
}
