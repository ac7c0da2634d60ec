import SearchSession
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Checks that a server accepts connections before a command's first call, within a short
/// timeout.
///
/// The gRPC client connects lazily and has no connect timeout of its own: a call to an address
/// that drops packets would wait for the call's whole deadline, and a refused connection would
/// surface as a bare UNAVAILABLE. Probing first lets a client command say "cannot connect to
/// ADDR: cause" and exit 3 within `timeout`.
enum ConnectProbe {
    /// Opens and closes one connection to `target`.
    ///
    /// - Parameters:
    ///   - target: The server's address.
    ///   - timeout: How long the connection may take to be accepted.
    /// - Returns: nil when the server accepted the connection, else the cause it did not.
    static func check(_ target: GRPCClient.Target, timeout: Duration) -> String? {
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        switch target {
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_family = AF_UNSPEC
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                return "cannot resolve \(host): \(String(cString: gai_strerror(status)))"
            }
            defer { freeaddrinfo(list) }
            return connect(
                family: first.pointee.ai_family, first.pointee.ai_addr, first.pointee.ai_addrlen, milliseconds)
        case .unix(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return "socket path too long" }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    connect(
                        family: AF_UNIX, generic, socklen_t(MemoryLayout<sockaddr_un>.size), milliseconds)
                }
            }
        }
    }

    private static func connect(
        family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, _ milliseconds: Int32
    ) -> String? {
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        if Glibc.connect(fd, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready == 0 { return "no answer within \(Double(milliseconds) / 1000) s" }
        guard ready > 0 else { return String(cString: strerror(errno)) }
        var failure: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size)
        return failure == 0 ? nil : String(cString: strerror(failure))
    }
}
