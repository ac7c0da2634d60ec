import ContinueService
import DeepLinkRouter
import SearchSession
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Raw bytes into a server connection: the real service on the demo data, listening on a Unix
/// socket in this process, gets the HTTP/2 client preface followed by the input as one client
/// connection.
///
/// One server serves every input. Per input the client writes everything, half-closes and reads
/// until the server closes. Invariants: the server closes the connection within
/// ``closeDeadlineMilliseconds`` (no hang), and no file descriptor outlives its connection.
enum ServerConnectionTarget {
    /// How long the server may take to close a connection the client has half-closed.
    static let closeDeadlineMilliseconds = 10_000

    /// Client preface of HTTP/2 (RFC 9113 §3.4); the input is what follows it.
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    nonisolated(unsafe) private static var socketPath = ""
    /// Held here so that the running server stays reachable: LeakSanitizer checks the process at
    /// exit, and a server referenced only from its own suspended task would look leaked.
    nonisolated(unsafe) private static var server: GRPCServer?
    nonisolated(unsafe) private static var baselineSockets = 0

    static func setUp() {
        let service: VisualSearchService
        do {
            let demo = FuzzPaths.examples + "/demo"
            let catalog = try CatalogLoader.load(path: demo + "/catalog.jsonl")
            let table = try RouteTable(contentsOfFile: demo + "/routes.json")
            let sessions = SearchSessions(engine: SearchEngine(catalog: catalog), store: InMemorySessionStore())
            service = VisualSearchService(sessions: sessions, router: Router(table: table))
        } catch {
            fatalError("server-connection: cannot load the demo from \(FuzzPaths.examples): \(error)")
        }
        var template = Array("/tmp/vi-continue-fuzz-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { fatalError("server-connection: mkdtemp failed") }
        socketPath = String(cString: directory) + "/server.sock"

        let configuration = ServerConfiguration(unixSocketPath: socketPath, eventLoopCount: 1)
        let server = GRPCServer(configuration: configuration, methods: service.methods + HealthService().methods)
        Self.server = server
        let listening = Listening()
        Task.detached {
            do {
                async let running: Void = server.run()
                _ = try await server.waitUntilListening()
                listening.signal()
                try await running
            } catch {
                fatalError("server-connection: the server failed: \(error)")
            }
        }
        listening.wait()
        // Settle: let the loop finish starting before the descriptor baseline is taken.
        runOne([])
        baselineSockets = openSocketCount()
    }

    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        runOne(preface + input)
        checkNoDescriptorLeak()
        return true
    }

    /// The `web-connection` target: the input as it is, so a connection without the HTTP/2
    /// preface reaches the HTTP/1.1 side of the same port (Connect, gRPC-Web, health, files).
    static func testWithoutPreface(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        runOne(Array(input))
        checkNoDescriptorLeak()
        return true
    }

    /// Connects, writes `bytes`, half-closes and drains until the server closes.
    private static func runOne(_ bytes: [UInt8]) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0, "socket: \(errno)")
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in socketPath.utf8.enumerated() { path[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(connected == 0, "connect \(socketPath): \(errno)")
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        var written = 0
        var halfClosed = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = monotonicMilliseconds() + closeDeadlineMilliseconds
        while true {
            if written == bytes.count && !halfClosed {
                _ = shutdown(fd, Int32(SHUT_WR))
                halfClosed = true
            }
            var events = Int16(POLLIN)
            if !halfClosed { events |= Int16(POLLOUT) }
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let remaining = deadline - monotonicMilliseconds()
            precondition(remaining > 0, "the server kept the connection open \(closeDeadlineMilliseconds) ms after EOF")
            guard poll(&poller, 1, Int32(min(remaining, 1000))) > 0 else { continue }
            if poller.revents & Int16(POLLOUT) != 0 && !halfClosed {
                let n = bytes.withUnsafeBytes { raw in
                    send(fd, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
                }
                if n > 0 {
                    written += n
                } else if errno != EAGAIN && errno != EINTR {
                    // The server closed first (a protocol error ends the connection): stop writing.
                    written = bytes.count
                }
            }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n == 0 { return }
                if n < 0 && errno != EAGAIN && errno != EINTR { return }
            }
        }
    }

    /// Traps when sockets stay open beyond the baseline; the server closes its end on its own
    /// loop, so give it a moment first.
    private static func checkNoDescriptorLeak() {
        for _ in 0..<10_000 {
            if openSocketCount() <= baselineSockets { return }
            usleep(200)
        }
        preconditionFailure("socket leak: \(openSocketCount()) open, \(baselineSockets) before the input")
    }

    /// The open sockets of this process: the listener and connections. Other descriptors are
    /// left out because the runtime opens some lazily (an eventfd, a timerfd) on first use.
    private static func openSocketCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let path = withUnsafeBytes(of: entry.pointee.d_name) {
                "/proc/self/fd/" + String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            let length = readlink(path, &target, target.count - 1)
            guard length > 0 else { continue }
            if target.prefix(7).map({ UInt8(bitPattern: $0) }) == Array("socket:".utf8) { count += 1 }
        }
        return count
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}

/// A one-shot signal from the server task to the thread waiting to start fuzzing.
private final class Listening: @unchecked Sendable {
    // On the heap: a semaphore must not move.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    func wait() {
        while sem_wait(semaphore) != 0 {}
    }
}
