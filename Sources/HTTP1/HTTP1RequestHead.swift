/// The head of an HTTP/1.1 request as ``HTTP1RequestParser`` accepted it: the request line, the
/// fields, and what they mean for the message's framing and the connection.
public struct HTTP1RequestHead: Sendable, Hashable {
    /// The method token, case kept (`GET`, `POST`).
    public var method: String
    /// The request target as sent: origin form (`/path?query`), or `*`, or absolute form.
    public var target: String
    /// The minor version: 1 for HTTP/1.1, 0 for HTTP/1.0.
    public var minorVersion: Int
    /// The header fields in order, names lowercased, values without surrounding whitespace.
    public var fields: [Field]
    /// How the body is framed.
    public var body: BodyFraming
    /// Whether the connection may carry another request after this one.
    public var keepAlive: Bool
    /// Whether the client waits for `100 Continue` before it sends the body.
    public var expectsContinue: Bool

    /// One header field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How a request's body is delimited.
    public enum BodyFraming: Sendable, Hashable {
        /// No body (no Content-Length and no Transfer-Encoding, or Content-Length 0).
        case none
        /// Exactly this many bytes.
        case length(Int)
        /// Chunked transfer coding.
        case chunked
    }

    /// The path part of the target, without the query.
    public var path: Substring {
        target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// The query part of the target, without `?`; empty when there is none.
    public var query: Substring {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: mark)...]
    }

    /// The value of the first field named `name` (lowercase).
    public func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    public init(
        method: String, target: String, minorVersion: Int, fields: [Field], body: BodyFraming, keepAlive: Bool,
        expectsContinue: Bool
    ) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.fields = fields
        self.body = body
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }
}

/// Why a request was refused, with the status to answer before closing the connection: after a
/// parse error the stream's framing is unknown, so nothing more on it can be trusted.
public struct HTTP1ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status for the answer: 400, 413, 414, 417, 431, 501 or 505.
    public var status: Int
    /// What was wrong, for the answer's body and the log.
    public var reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status): \(reason)" }
}
