import Foundation
import Testing

/// Commands pointed at a server that is not there: exit 3, naming the address and why.
@Suite(.serialized) struct ServerUnreachableTests {
    /// A loopback port nothing listens on: bound to get a free number, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test(
        "every server command exits 3 when the port is closed",
        arguments: [
            ["query", "--labels", "jazz"], ["capture", "--labels", "jazz"], ["search", "0123"],
            ["open", "album:x"], ["link", "album:x"], ["catalog", "delete", "album:x"], ["health"],
        ])
    func closedTCPPort(command: [String]) async throws {
        let address = "127.0.0.1:\(try Self.closedPort())"
        let output = try await CLI.run(command + ["--server", address])
        #expect(output.status == 3, "\(command): \(output.stderr)")
        #expect(output.stderr.contains(address), "\(output.stderr)")
    }

    @Test("a client command names the address and the cause")
    func message() async throws {
        let port = try Self.closedPort()
        let output = try await CLI.run(["query", "--labels", "jazz", "--server", "127.0.0.1:\(port)"])
        #expect(output.stderr == "error: cannot connect to 127.0.0.1:\(port): Connection refused\n")
        #expect(output.stdout.isEmpty)
    }

    @Test("a Unix socket path with no server exits 3")
    func missingUnixSocket() async throws {
        let output = try await CLI.run(["query", "--labels", "jazz", "--server", "unix:/nonexistent/vi.sock"])
        #expect(output.status == 3)
        #expect(output.stderr == "error: cannot connect to unix:/nonexistent/vi.sock: No such file or directory\n")
    }

    @Test("a server whose accept queue is full gets the connect timeout, not the call's deadline")
    func connectTimeout() async throws {
        // A listener that never accepts, its backlog filled by connections of our own: the
        // kernel drops further SYNs, so the next connect neither succeeds nor fails.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && getsockname(listener, generic, &length) == 0
                    && listen(listener, 0) == 0
            }
        }
        try #require(listening)
        var fillers: [Int32] = []
        defer { for fd in fillers { close(fd) } }
        for _ in 0..<8 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            fillers.append(fd)
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let output = try await CLI.run([
            "query", "--labels", "jazz", "--server", "127.0.0.1:\(port)", "--timeout", "1",
        ])
        #expect(output.status == 3)
        #expect(output.stderr == "error: cannot connect to 127.0.0.1:\(port): no answer within 1.0 s\n")
    }
}
