internal import Glibc

/// Thin helpers over BSD sockets; every descriptor is non-blocking and close-on-exec.
enum Socket {
    static func errnoText(_ err: Int32 = errno) -> String {
        String(cString: strerror(err))
    }

    /// Resolves a host and port to socket addresses (numeric hosts never touch DNS).
    static func resolve(host: String, port: Int, passive: Bool) throws(TransportError) -> [(
        family: Int32, address: [UInt8]
    )] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        if passive { hints.ai_flags = AI_PASSIVE }
        var result: UnsafeMutablePointer<addrinfo>?
        let node = host == "localhost" ? "127.0.0.1" : host
        let rc = getaddrinfo(node.isEmpty ? nil : node, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw TransportError(
                code: .badAddress, message: "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var out: [(Int32, [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            let raw = UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen))
            out.append((info.pointee.ai_family, Array(raw)))
            cursor = info.pointee.ai_next
        }
        return out
    }

    /// Opens a listening TCP socket.
    ///
    /// - Returns: The descriptor and the bound port.
    static func listenTCP(host: String, port: Int, backlog: Int32 = 1024) throws(TransportError) -> (
        fd: Int32, port: Int
    ) {
        let addresses = try resolve(host: host, port: port, passive: true)
        guard let (family, address) = addresses.first else {
            throw TransportError(code: .badAddress, message: "no address for \(host)")
        }
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError(code: .bindFailed, message: "socket: \(errnoText())") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withUnsafeBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard rc == 0, listen(fd, backlog) == 0 else {
            let text = errnoText()
            close(fd)
            throw TransportError(code: .bindFailed, message: "bind \(host):\(port): \(text)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        return (fd, portOf(&storage))
    }

    private static func portOf(_ storage: inout sockaddr_storage) -> Int {
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }

    /// Fills a `sockaddr_un`, or fails when the path is too long.
    static func unixAddress(_ path: String) throws(TransportError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw TransportError(code: .badAddress, message: "unix socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Opens a listening Unix-domain socket, removing a stale socket file first.
    static func listenUnix(path: String, backlog: Int32 = 1024) throws(TransportError) -> Int32 {
        var address = try unixAddress(path)
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError(code: .bindFailed, message: "socket: \(errnoText())") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // Only the owner may connect, whatever the umask: the socket is how local tools reach the
        // server with rights TCP clients need a token for. Set before listen, so no connection
        // can be accepted while the file is still open to others.
        guard rc == 0, chmod(path, 0o600) == 0, listen(fd, backlog) == 0 else {
            let text = errnoText()
            close(fd)
            throw TransportError(code: .bindFailed, message: "bind \(path): \(text)")
        }
        return fd
    }

    /// Starts a non-blocking connect.
    ///
    /// - Returns: The descriptor and whether the connect is still in progress.
    static func connect(family: Int32, address: UnsafeRawBufferPointer) throws(TransportError) -> (
        fd: Int32, inProgress: Bool
    ) {
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError(code: .connectFailed, message: "socket: \(errnoText())") }
        if family != AF_UNIX { setNoDelay(fd) }
        let rc = Glibc.connect(
            fd, address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        if rc == 0 { return (fd, false) }
        let err = errno
        if err == EINPROGRESS || err == EAGAIN { return (fd, true) }
        close(fd)
        throw TransportError(code: .connectFailed, message: "connect: \(errnoText(err))")
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Describes the peer of an accepted socket as gRPC does: "ipv4:a.b.c.d:p", "ipv6:[::1]:p", "unix:".
    static func peerName(_ storage: inout sockaddr_storage, unixPath: String?) -> String {
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if family == AF_INET {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                    return "ipv4:\(cText(text)):\(UInt16(bigEndian: sin.pointee.sin_port))"
                }
            }
        }
        if family == AF_INET6 {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                    return "ipv6:[\(cText(text))]:\(UInt16(bigEndian: sin.pointee.sin6_port))"
                }
            }
        }
        return "unix:\(unixPath ?? "")"
    }

    private static func cText(_ text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Ignores SIGPIPE process-wide: a peer that vanishes must never kill us (sends also pass
    /// MSG_NOSIGNAL; this covers anything else).
    static let ignoreSIGPIPE: Void = {
        signal(SIGPIPE, SIG_IGN)
        return ()
    }()
}
