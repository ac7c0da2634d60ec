import Glibc
import H2TestClient
import Synchronization
import Testing

@testable import WireProtocol

/// Inputs found by the fuzzers in `Fuzz/` (`scripts/fuzz`), replayed against the real server.
@Suite struct WireProtocolFuzzRegressionTests {
    /// The HTTP/2 client preface, SETTINGS, then HEADERS and DATA (END_STREAM) of stream 1: a
    /// unary call to `PATH` carrying the message "hi". The path is 16 bytes, so one of the two
    /// methods below is patched in at `pathOffset`.
    static let unaryCall: [UInt8] = [
        0x50, 0x52, 0x49, 0x20, 0x2a, 0x20, 0x48, 0x54, 0x54, 0x50, 0x2f, 0x32, 0x2e, 0x30, 0x0d, 0x0a,
        0x0d, 0x0a, 0x53, 0x4d, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x76, 0x01, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x07, 0x3a, 0x6d, 0x65, 0x74,
        0x68, 0x6f, 0x64, 0x04, 0x50, 0x4f, 0x53, 0x54, 0x00, 0x07, 0x3a, 0x73, 0x63, 0x68, 0x65, 0x6d,
        0x65, 0x04, 0x68, 0x74, 0x74, 0x70, 0x00, 0x05, 0x3a, 0x70, 0x61, 0x74, 0x68, 0x10, 0x2f, 0x74,
        0x65, 0x73, 0x74, 0x2e, 0x45, 0x63, 0x68, 0x6f, 0x2f, 0x55, 0x6e, 0x61, 0x72, 0x79, 0x00, 0x0a,
        0x3a, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x74, 0x79, 0x09, 0x6c, 0x6f, 0x63, 0x61, 0x6c,
        0x68, 0x6f, 0x73, 0x74, 0x00, 0x0c, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x74, 0x79,
        0x70, 0x65, 0x10, 0x61, 0x70, 0x70, 0x6c, 0x69, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2f, 0x67,
        0x72, 0x70, 0x63, 0x00, 0x02, 0x74, 0x65, 0x08, 0x74, 0x72, 0x61, 0x69, 0x6c, 0x65, 0x72, 0x73,
        0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x68, 0x69,
    ]
    static let pathOffset = 78

    static func call(_ path: String) -> [UInt8] {
        var bytes = unaryCall
        precondition(path.utf8.count == 16)
        bytes.replaceSubrange(pathOffset..<pathOffset + 16, with: path.utf8)
        return bytes
    }

    /// The writer a handler was given, held weakly: it must go away with the call.
    final class WriterWitness: Sendable {
        private struct Reference { weak var writer: AnyObject? }
        private let reference = Mutex(Reference())
        private let recorded = Atomic(false)

        func record(_ writer: any ResponseWriter) {
            reference.withLock { $0.writer = writer as AnyObject }
            recorded.store(true, ordering: .releasing)
        }
        var wasRecorded: Bool { recorded.load(ordering: .acquiring) }
        var isAlive: Bool { reference.withLock { $0.writer != nil } }
    }

    static func methods(_ witness: WriterWitness) -> [ServerMethod] {
        [
            ServerMethod(path: "/test.Echo/Unary", kind: .unary) { request, _, writer in
                witness.record(writer)
                try await writer.write(request)
            },
            ServerMethod(path: "/test.Echo/Holds", kind: .unary) { request, _, writer in
                witness.record(writer)
                try await Task.sleep(for: .seconds(30))
                try await writer.write(request)
            },
        ]
    }

    /// Found by the server-connection target: LeakSanitizer reported the stream, its response
    /// writer, the handler task and the connection of every call that ran a handler, because the
    /// stream and its writer referenced each other after the call ended.
    @Test(
        "a call's stream, writer and connection are released when the call ends",
        arguments: ["/test.Echo/Unary", "/test.Echo/Holds"])
    func callStateIsReleased(path: String) async throws {
        let witness = WriterWitness()
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.shutdownGracePeriod = .seconds(1)
        try await withServer(configuration, methods: Self.methods(witness)) { _, addresses in
            let fd = try connectLoopback(port: try #require(addresses.tcpPort))
            let bytes = Self.call(path)
            #expect(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
            for _ in 0..<500 where !witness.wasRecorded { try await Task.sleep(for: .milliseconds(10)) }
            #expect(witness.wasRecorded)
            if path == "/test.Echo/Unary" {
                // Read the whole answer: the call is over while the connection stays open.
                var received = 0
                var buffer = [UInt8](repeating: 0, count: 4096)
                while received < 60 {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n <= 0 { break }
                    received += n
                }
                #expect(received >= 60, "the server answered \(received) bytes")
            }
            // The connection goes away (for the held call, in the middle of it).
            close(fd)
            for _ in 0..<500 where witness.isAlive { try await Task.sleep(for: .milliseconds(10)) }
            #expect(!witness.isAlive, "the response writer of \(path) outlived its call and connection")
        }
    }
}

/// A blocking TCP connection to 127.0.0.1:`port`.
private func connectLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard result == 0 else {
        close(fd)
        throw RawClientError(description: "connect to port \(port) failed: errno \(errno)")
    }
    return fd
}
