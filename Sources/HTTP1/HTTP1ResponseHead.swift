/// The status line and header fields of an HTTP/1.1 response, serialized.
public struct HTTP1ResponseHead: Sendable, Hashable {
    public var status: Int
    public var fields: [HTTP1RequestHead.Field]

    public init(status: Int, fields: [HTTP1RequestHead.Field] = []) {
        self.status = status
        self.fields = fields
    }

    /// The bytes of the status line, the fields and the empty line that ends the head.
    ///
    /// CR, LF and NUL in a name or value become spaces: a value that came from a request (an
    /// echoed origin, an error message) must not be able to end the head early and add fields
    /// or a second response (response splitting).
    public func serialized() -> [UInt8] {
        var out = Array("HTTP/1.1 \(status) \(Self.reason(status))\r\n".utf8)
        for field in fields {
            out += Self.sanitized(field.name)
            out += Array(": ".utf8)
            out += Self.sanitized(field.value)
            out += [0x0D, 0x0A]
        }
        out += [0x0D, 0x0A]
        return out
    }

    private static func sanitized(_ text: String) -> [UInt8] {
        text.utf8.map { $0 == 0x0D || $0 == 0x0A || $0 == 0 ? 0x20 : $0 }
    }

    /// The reason phrase of the statuses this server sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 499: "Client Closed Request"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

/// The chunked transfer coding of a response body whose length is not known in advance (a
/// gRPC-Web stream).
public enum HTTP1Chunked {
    /// One chunk of `bytes`; empty input gives no bytes (an empty chunk would end the body).
    public static func chunk(_ bytes: some Collection<UInt8>) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var out = Array(String(bytes.count, radix: 16).utf8)
        out += [0x0D, 0x0A]
        out += bytes
        out += [0x0D, 0x0A]
        return out
    }

    /// The last chunk, with no trailer fields.
    public static let end: [UInt8] = Array("0\r\n\r\n".utf8)
}
