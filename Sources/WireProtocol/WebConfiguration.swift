/// What a server's port answers besides gRPC, for browsers, `curl`, proxies and load
/// balancers: Connect (unary, JSON or protobuf, POST or GET) and gRPC-Web calls to the same
/// methods, `GET /healthz`, `GET /metrics`, and files, over HTTP/1.1 and HTTP/2 alike.
///
/// The first bytes of a connection decide: the HTTP/2 preface makes it HTTP/2, anything else is
/// read as HTTP/1.1. On HTTP/2, a request that is not gRPC (not a POST with a gRPC content type)
/// is answered as the same request over HTTP/1.1 would be.
public struct WebConfiguration: Sendable {
    /// Whether anything but gRPC is served: `false` closes connections that are not HTTP/2 and
    /// answers an HTTP/2 request that is not gRPC with a bare 405 or 415.
    public var isEnabled: Bool
    /// Web pages from these origins may call the methods besides the server's own pages
    /// (`https://app.example`; `*` for any). The default is the same origin only.
    public var allowedOrigins: Set<String>
    /// Files by request path (`/`, `/app.js`).
    public var files: [String: WebFile]
    /// Files found per request for paths not in `files` (a catalog's images); `nil` when none.
    /// Called on the server's blocking pool: it may read the disk.
    public var fileLookup: (@Sendable (_ path: String) -> WebFile?)?
    /// The Prometheus text of `GET /metrics`; `nil` answers 404.
    public var metrics: (@Sendable () -> String)?
    /// How long a request's head and body may take to arrive once started (a slow-header
    /// attack holds a connection this long at most), answered 408.
    public var requestTimeout: Duration
    /// An HTTP/1.1 connection without a request for this long is closed.
    public var idleTimeout: Duration
    /// The largest request body accepted (413 above).
    public var maxRequestBodyBytes: Int

    public init(
        isEnabled: Bool = true, allowedOrigins: Set<String> = [], files: [String: WebFile] = [:],
        fileLookup: (@Sendable (_ path: String) -> WebFile?)? = nil, metrics: (@Sendable () -> String)? = nil,
        requestTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
        maxRequestBodyBytes: Int = 8 << 20
    ) {
        self.isEnabled = isEnabled
        self.allowedOrigins = allowedOrigins
        self.files = files
        self.fileLookup = fileLookup
        self.metrics = metrics
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }
}

/// A file the server sends as it is.
public struct WebFile: Sendable, Hashable {
    public var contentType: String
    public var bytes: [UInt8]
    /// The `Cache-Control` value: the shell's files change with the binary, so `no-cache`
    /// (revalidate) by default.
    public var cacheControl: String

    public init(contentType: String, bytes: [UInt8], cacheControl: String = "no-cache") {
        self.contentType = contentType
        self.bytes = bytes
        self.cacheControl = cacheControl
    }

    /// The content type of a file name's extension, for the files a web shell and a catalog have.
    public static func contentType(ofName name: String) -> String {
        switch name.split(separator: ".").last?.lowercased() ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
