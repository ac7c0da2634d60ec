/// Where a Redis server listens, and which of its databases holds the sessions.
///
/// Written as `redis://HOST[:PORT][/DB]` (the port defaults to 6379, the database to 0; an IPv6
/// host goes in brackets) or `redis+unix://PATH[?db=DB]` for a Unix socket (PATH is absolute, so
/// the address reads `redis+unix:///run/redis.sock`).
public struct RedisAddress: Hashable, Sendable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Hashable, Sendable {
        /// A TCP host (name or address) and port.
        case tcp(host: String, port: Int)
        /// A Unix socket path.
        case unix(path: String)
    }

    /// How to reach the server.
    public var endpoint: Endpoint
    /// The database number chosen with `SELECT` after connecting.
    public var database: Int

    /// Creates an address.
    ///
    /// - Parameters:
    ///   - endpoint: How to reach the server.
    ///   - database: The database number (default 0).
    public init(_ endpoint: Endpoint, database: Int = 0) {
        self.endpoint = endpoint
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]` or `redis+unix://PATH[?db=DB]`.
    ///
    /// - Parameter text: The address.
    /// - Throws: ``SearchError/Code/invalidArgument`` naming what is wrong.
    public init(parsing text: String) throws(SearchError) {
        if text.hasPrefix("redis+unix://") {
            var path = Substring(text.dropFirst("redis+unix://".count))
            var database = 0
            if let query = path.firstIndex(of: "?") {
                let parameter = path[path.index(after: query)...]
                guard parameter.hasPrefix("db="), let number = Self.database(parameter.dropFirst(3)) else {
                    throw .invalid("Redis address \(text): the only query is ?db=N with N from 0 to 65535")
                }
                database = number
                path = path[..<query]
            }
            guard path.hasPrefix("/") else {
                throw .invalid("Redis address \(text): the socket path must be absolute (redis+unix:///PATH)")
            }
            self.init(.unix(path: String(path)), database: database)
            return
        }
        guard text.hasPrefix("redis://") else {
            throw .invalid("Redis address \(text) must start with redis:// or redis+unix://")
        }
        var rest = Substring(text.dropFirst("redis://".count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let number = rest[rest.index(after: slash)...]
            if !number.isEmpty {
                guard let parsed = Self.database(number) else {
                    throw .invalid("Redis address \(text): the database must be a number from 0 to 65535")
                }
                database = parsed
            }
            rest = rest[..<slash]
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw .invalid("Redis address \(text): an IPv6 host needs its closing ]")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalid("Redis address \(text): expected :PORT after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw .invalid("Redis address \(text) has no host") }
        var port = 6379
        if let portText {
            guard let parsed = Int(portText), (1...65535).contains(parsed) else {
                throw .invalid("Redis address \(text): the port must be a number from 1 to 65535")
            }
            port = parsed
        }
        self.init(.tcp(host: String(host), port: port), database: database)
    }

    private static func database(_ text: Substring) -> Int? {
        guard let number = Int(text), (0...65535).contains(number), text.allSatisfy(\.isASCII) else { return nil }
        return number
    }

    /// The address in the form it is parsed from.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            let shown = host.contains(":") ? "[\(host)]" : host
            return "redis://\(shown):\(port)" + (database == 0 ? "" : "/\(database)")
        case .unix(let path):
            return "redis+unix://\(path)" + (database == 0 ? "" : "?db=\(database)")
        }
    }
}
