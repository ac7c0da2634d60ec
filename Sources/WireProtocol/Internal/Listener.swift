internal import CNghttp2
internal import Glibc

/// A listening socket on an event loop; hands accepted sockets to the server.
final class Listener: EventHandler {
    let fd: Int32
    let unixPath: String?
    unowned let loop: EventLoop
    private let onAccept: (Int32, String) -> Void
    private var isClosed = false

    init(fd: Int32, unixPath: String?, loop: EventLoop, onAccept: @escaping (Int32, String) -> Void) {
        self.fd = fd
        self.unixPath = unixPath
        self.loop = loop
        self.onAccept = onAccept
    }

    func handleEvent(_ events: UInt32) {
        while !isClosed {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(fd, $0, &length)
                }
            }
            if client < 0 {
                let error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Out of descriptors or memory: a level-triggered listener would spin, so stop
                    // watching it for a moment.
                    loop.modify(fd, events: 0)
                    loop.schedule(at: .now + .milliseconds(100)) { [weak self] in
                        guard let self, !self.isClosed else { return }
                        self.loop.modify(self.fd, events: EPOLLIN.rawValue)
                    }
                }
                return  // EAGAIN: drained.
            }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            if unixPath == nil { Socket.setNoDelay(client) }
            onAccept(client, Socket.peerName(&storage, unixPath: unixPath))
        }
    }

    /// Stops listening; loop thread only.
    func close() {
        if isClosed { return }
        isClosed = true
        loop.unregister(fd)
        Glibc.close(fd)
    }
}
