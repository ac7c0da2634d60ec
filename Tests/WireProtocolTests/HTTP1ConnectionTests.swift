import Foundation
import Testing
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 side of the gRPC port over real sockets: what the parser's unit tests cannot
/// show — timers, pipelining order, closing after a refusal, draining on shutdown.
@Suite struct HTTP1ConnectionTests {
    /// A blocking TCP client that writes bytes and reads what comes back.
    final class RawConnection: Sendable {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(fd) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Everything read until the server closes or `timeout` passes; `closed` says which.
        ///
        /// The wait runs on a thread of its own: blocking a thread of the cooperative pool could
        /// starve the in-process server's handlers, which run there.
        func readUntilClosed(timeout: Duration = .seconds(20)) async -> (text: String, closed: Bool) {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.blockingRead(timeout: timeout)) }.start()
            }
        }

        private func blockingRead(timeout: Duration) -> (text: String, closed: Bool) {
            var received = [UInt8]()
            let deadline = ContinuousClock.now + timeout
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
                received += buffer[..<n]
            }
            return (String(decoding: received, as: UTF8.self), false)
        }

        /// What arrives within `timeout`, without waiting for a close.
        func read(for timeout: Duration) async -> String { await readUntilClosed(timeout: timeout).text }
    }

    static func configuration(_ web: WebConfiguration = WebConfiguration()) -> ServerConfiguration {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.web = web
        return configuration
    }

    @Test func aSlowHeadGets408AndTheConnectionCloses() async throws {
        let web = WebConfiguration(requestTimeout: .milliseconds(300))
        try await withServer(Self.configuration(web)) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n")  // and never the empty line
            // The server, not this client, ends it (the wait is generous: a loaded machine is slow).
            let (text, closed) = await connection.readUntilClosed(timeout: .seconds(30))
            #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n") && closed, "\(text)")
        }
    }

    @Test func anIdleConnectionIsClosed() async throws {
        let web = WebConfiguration(idleTimeout: .milliseconds(200))
        try await withServer(Self.configuration(web)) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            let (text, closed) = await connection.readUntilClosed(timeout: .seconds(30))
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && closed, "\(text)")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            connection.send(
                "GET /nothing-here HTTP/1.1\r\nHost: a\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let (text, closed) = await connection.readUntilClosed()
            // Bodies end in a newline, so each status line starts a line of its own.
            let statuses = text.split(whereSeparator: \.isNewline).map(String.init)
                .filter { $0.hasPrefix("HTTP/1.1 ") }
            #expect(statuses == ["HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"], "\(text)")
            #expect(closed && text.hasSuffix("connection: close\r\n\r\nok\n"))
        }
    }

    @Test func aRefusalEndsTheConnectionAndWhatFollowsIsNotRead() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            connection.send(
                "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            let (text, closed) = await connection.readUntilClosed()
            #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && closed, "\(text)")
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "a smuggled request was answered: \(text)")
        }
    }

    @Test func http10ClosesAfterItsAnswer() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            connection.send("GET /healthz HTTP/1.0\r\n\r\n")
            let (text, closed) = await connection.readUntilClosed()
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("connection: close") && closed)
        }
    }

    @Test func gRPCWebReachesTheMethods() async throws {
        try await withServer(Self.configuration()) { _, addresses in
            let connection = try RawConnection(port: addresses.tcpPort!)
            let message = "hi"
            connection.send(
                "POST /test.Echo/Unary HTTP/1.1\r\nHost: a\r\nContent-Type: application/grpc-web-text\r\n"
                    + "Content-Length: 12\r\nConnection: close\r\n\r\n"
                    + Data([0, 0, 0, 0, 2] + Array(message.utf8)).base64EncodedString())
            let (text, _) = await connection.readUntilClosed()
            let body = try #require(text.components(separatedBy: "\r\n\r\n").last)
            let decoded = try #require(Data(base64Encoded: body))
            #expect(Array(decoded.prefix(7)) == [0, 0, 0, 0, 2] + Array(message.utf8), "\(text)")
            #expect(String(decoding: decoded.dropFirst(12), as: UTF8.self) == "grpc-status:0\r\n")
        }
    }

    @Test func shutdownClosesIdleConnectionsAndFinishesBusyOnes() async throws {
        let observations = Observations()
        let (idle, busy) = try await withServer(Self.configuration(), observations: observations) { server, addresses in
            let idle = try RawConnection(port: addresses.tcpPort!)
            idle.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            _ = await idle.read(for: .milliseconds(300))
            let busy = try RawConnection(port: addresses.tcpPort!)
            busy.send(
                "POST /test.Echo/Slow HTTP/1.1\r\nHost: a\r\nContent-Type: application/grpc-web\r\n"
                    + "Content-Length: 5\r\n\r\n\u{0}\u{0}\u{0}\u{0}\u{0}")
            #expect(await observations.waitFor("slow-started"))
            server.beginGracefulShutdown()
            return (idle, busy)
        }
        #expect(await idle.readUntilClosed().closed)
        let (text, closed) = await busy.readUntilClosed()
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("grpc-status:0") && closed, "\(text)")
    }
}
