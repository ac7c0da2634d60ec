public import HTTP1

/// Which web pages may call the service from a browser (CORS), and the fields that say so.
///
/// The default is the same origin only: the page `serve` itself serves at `/` may call, a page
/// from elsewhere may not unless its origin is listed. A request without `Origin` is not from a
/// browser's cross-origin fetch and is not checked here.
public struct CORSPolicy: Sendable, Hashable {
    /// Origins allowed besides the server's own, as browsers write them (`https://app.example`);
    /// `*` allows every origin.
    public var allowedOrigins: Set<String>

    public init(allowedOrigins: Set<String> = []) {
        self.allowedOrigins = allowedOrigins
    }

    /// Request fields a browser may send to the service's methods.
    public static let allowedRequestFields = [
        "authorization", "content-type", "connect-protocol-version", "connect-timeout-ms", "grpc-timeout",
        "x-grpc-web", "x-user-agent",
    ]

    /// Response fields a page may read.
    public static let exposedResponseFields = ["grpc-status", "grpc-message", "grpc-status-details-bin"]

    /// Whether a request from `origin` to the server at `host` (its `Host` field) is allowed.
    public func allows(origin: String, host: String?) -> Bool {
        if allowedOrigins.contains("*") || allowedOrigins.contains(origin) { return true }
        // Same origin: the origin's authority is the host the browser addressed.
        guard let host, let separator = origin.firstRange(of: "://") else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }

    /// The fields to add to an answer to `head`: empty for a request without `Origin`, or
    /// `nil` when its origin is not allowed (the caller answers 403).
    public func responseFields(for head: HTTP1RequestHead) -> [HTTP1RequestHead.Field]? {
        guard let origin = head.field("origin") else { return [] }
        guard allows(origin: origin, host: head.field("host")) else { return nil }
        return [
            .init(name: "access-control-allow-origin", value: origin),
            .init(name: "vary", value: "Origin"),
            .init(name: "access-control-expose-headers", value: Self.exposedResponseFields.joined(separator: ", ")),
        ]
    }

    /// The answer's fields to a preflight (`OPTIONS` with `Access-Control-Request-Method`), or
    /// `nil` when the origin, method or a requested field is not allowed.
    public func preflightFields(for head: HTTP1RequestHead) -> [HTTP1RequestHead.Field]? {
        guard let origin = head.field("origin"), allows(origin: origin, host: head.field("host")),
            let method = head.field("access-control-request-method"), method == "POST" || method == "GET"
        else { return nil }
        let requested = (head.field("access-control-request-headers") ?? "").split(separator: ",").map {
            $0.trimmingSpaces().lowercased()
        }.filter { !$0.isEmpty }
        guard requested.allSatisfy({ Self.allowedRequestFields.contains($0) }) else { return nil }
        return [
            .init(name: "access-control-allow-origin", value: origin),
            .init(name: "vary", value: "Origin"),
            .init(name: "access-control-allow-methods", value: "GET, POST"),
            .init(name: "access-control-allow-headers", value: Self.allowedRequestFields.joined(separator: ", ")),
            .init(name: "access-control-max-age", value: "7200"),
        ]
    }
}
