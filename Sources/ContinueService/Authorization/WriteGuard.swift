public import WireProtocol

/// Who may change the catalog: callers on the Unix socket (the socket file is the owner's only)
/// and in-process callers always; TCP callers only with the configured token, sent as
/// `authorization: Bearer <token>`. Reads are never guarded.
public struct WriteGuard: Sendable {
    /// The token TCP writers must present; without one, TCP writes are refused.
    public let token: WriteToken?

    /// Creates the guard.
    ///
    /// - Parameter token: The token TCP writers must present; `nil` refuses every TCP write.
    public init(token: WriteToken?) {
        self.token = token
    }

    /// Lets the call through, or says why not.
    ///
    /// - Throws: `RPCError` UNAUTHENTICATED when a TCP call has no bearer token,
    ///   PERMISSION_DENIED when its token is wrong or the server has none configured.
    public func check(_ context: ServerContext) throws(RPCError) {
        // The server names TCP peers "ipv4:…" or "ipv6:…"; "unix:…" and in-process callers are
        // local by construction.
        guard context.peer.hasPrefix("ipv4:") || context.peer.hasPrefix("ipv6:") else { return }
        guard let token else {
            throw RPCError(
                code: .permissionDenied,
                message:
                    "catalog writes over TCP need a write token, and this server has none: start serve with "
                    + "--write-token-file PATH (or VI_CONTINUE_WRITE_TOKEN_FILE) and send 'authorization: Bearer "
                    + "<token>', or write over the server's Unix socket")
        }
        guard let offered = Self.bearerToken(in: context.requestMetadata) else {
            throw RPCError(
                code: .unauthenticated,
                message: "catalog writes over TCP need metadata 'authorization: Bearer <token>' (the CLI: --token-file)"
            )
        }
        guard token.matches(offered) else {
            throw RPCError(code: .permissionDenied, message: "the write token does not match this server's")
        }
    }

    /// The credentials of an `authorization: Bearer <credentials>` entry (the scheme name is
    /// case-insensitive, as in RFC 9110), or `nil` when there is none.
    static func bearerToken(in metadata: Metadata) -> ArraySlice<UInt8>? {
        guard case .string(let value)? = metadata.first(named: "authorization") else { return nil }
        let bytes = Array(value.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
            zip(bytes, scheme).allSatisfy({ offered, expected in offered | 0x20 == expected | 0x20 })
        else { return nil }
        var start = scheme.count
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        return start < bytes.count ? bytes[start...] : nil
    }
}
