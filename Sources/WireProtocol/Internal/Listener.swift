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
                // EAGAIN: drained. EMFILE and friends: try again on the next readiness event.
                return
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
