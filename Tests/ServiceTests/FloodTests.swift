import CNghttp2
import ContinueService
import Foundation
import Glibc
import H2TestClient
import SearchAPI
import Synchronization
import Testing
import WireProtocol

/// A real `vi-continue serve` under hostile clients all at once: idle connections by the
/// thousand, slow readers, half-open streams, a rapid-reset flood and a ping flood.
extension ServeProcessTests {
    @Suite struct FloodTests {
        /// A TCP connection that sends the HTTP/2 preface and an empty SETTINGS frame, then nothing.
        final class IdleConnection {
            let fd: Int32

            init(port: Int) throws {
                fd = try connectToLoopback(port: port)
                let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
                _ = send(fd, preface, preface.count, Int32(MSG_NOSIGNAL))
            }

            deinit { close(fd) }

            /// Whether the server still holds the connection open: its SETTINGS wait unread and no
            /// end of stream has arrived.
            var isOpen: Bool {
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 1
            }
        }

        /// Numbers observed while the flood runs.
        final class Tally: Sendable {
            private let state = Mutex((peakRSS: 0, goodCalls: 0, failedCalls: [String](), stopped: false))
            func sawRSS(_ bytes: Int) { state.withLock { $0.peakRSS = max($0.peakRSS, bytes) } }
            func good() { state.withLock { $0.goodCalls += 1 } }
            func failed(_ error: any Error) { state.withLock { $0.failedCalls.append("\(error)") } }
            var peakRSS: Int { state.withLock { $0.peakRSS } }
            var goodCalls: Int { state.withLock { $0.goodCalls } }
            var failedCalls: [String] { state.withLock { $0.failedCalls } }
            var isStopped: Bool { state.withLock { $0.stopped } }
            func stop() { state.withLock { $0.stopped = true } }
        }

        /// A message in gRPC framing.
        static func framed(_ bytes: [UInt8]) -> [UInt8] {
            let n = UInt32(bytes.count)
            return [0, UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + bytes
        }

        /// Lets this process open a few thousand descriptors.
        static func raiseDescriptorLimit() {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }

        static let query = QueryRequest(
            descriptor: SearchAPI.Descriptor(labels: [SearchAPI.Label(text: "jazz", confidence: 0.9)]), limit: 20)

        @Test(
            "under 1,000 idle connections, slow readers, half-open streams and reset and ping floods: RSS stays under 256 MiB, a good client is served, the flooders are limited"
        )
        func floodedServerStaysWithinBounds() async throws {
            Self.raiseDescriptorLimit()
            let server = try ServerProcess(["--log-level", "error", "--idle-timeout", "120"])
            let port = server.port
            let startRSS = server.residentBytes() ?? 0
            let tally = Tally()
            let good = ServiceClient(target: .tcp(host: "127.0.0.1", port: port))
            // A session whose pages are large (100 results): what the slow readers ask for.
            let bigPage = try await good.capture(
                CaptureRequest(
                    descriptor: SearchAPI.Descriptor(
                        labels: ["rock", "jazz", "live", "classical"].map { SearchAPI.Label(text: $0, confidence: 0.9) }
                    ),
                    pageSize: 100))

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !tally.isStopped {
                        if let bytes = server.residentBytes() { tally.sawRSS(bytes) }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
                group.addTask {
                    while !tally.isStopped {
                        do {
                            let response = try await good.query(Self.query, options: CallOptions(timeout: .seconds(30)))
                            if response.results.isEmpty { tally.failed(RawClientError(description: "empty answer")) }
                            tally.good()
                        } catch {
                            tally.failed(error)
                        }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }

                // 1,000 idle connections.
                var idle: [IdleConnection] = []
                for _ in 0..<1000 { idle.append(try IdleConnection(port: port)) }

                // Slow readers: 10 connections × 10 large responses (a page of 100 results), never read.
                var slowReaders: [RawH2Client] = []
                let search = Self.framed(SearchRequest(sessionID: bigPage.sessionID).serializedBytes())
                for _ in 0..<10 {
                    let reader = try RawH2Client(port: port, waitsForServerStreamLimit: false)
                    for _ in 0..<10 { reader.open(path: MethodPaths.VisualSearch.search, body: search) }
                    try await reader.pump { true }
                    slowReaders.append(reader)
                }

                // Half-open streams: 10 connections × 120 streams of HEADERS without END_STREAM, sent
                // before the server's SETTINGS are read; 20 on each are over the limit of 100.
                var halfOpen: [(client: RawH2Client, ids: [Int32])] = []
                for _ in 0..<10 {
                    let client = try RawH2Client(port: port, waitsForServerStreamLimit: false)
                    let ids = (0..<120).map { _ in
                        client.open(path: MethodPaths.VisualSearch.query, body: [], endStream: false)
                    }
                    try await client.pump { true }
                    halfOpen.append((client, ids))
                }

                // Rapid reset (CVE-2023-44487): request HEADERS each cancelled at once, past the allowed burst.
                let resetter = try RawH2Client(port: port, waitsForServerStreamLimit: false)
                var resetsSent = 0
                while resetsSent < 3000, resetter.goawayCode == nil, !resetter.connectionClosed {
                    let id = resetter.open(path: MethodPaths.VisualSearch.query, body: [], endStream: false)
                    try await resetter.pump { true }
                    resetter.reset(id)
                    resetsSent += 1
                    if resetsSent % 50 == 0 { resetter.receiveAvailable() }
                }
                try await resetter.pump { resetter.goawayCode != nil || resetter.connectionClosed }

                // Ping flood.
                let pinger = try RawH2Client(port: port, waitsForServerStreamLimit: false)
                for _ in 0..<1000 { pinger.ping() }
                try await pinger.pump { pinger.goawayCode != nil || pinger.connectionClosed }

                // Let the good client run a little longer beside everything still open.
                try await Task.sleep(for: .milliseconds(500))
                let rssUnderFlood = server.residentBytes() ?? 0

                for client in halfOpen.map(\.client) {
                    try await client.pump(seconds: 5) {
                        client.replies.values.filter { $0.resetCode == NGHTTP2_REFUSED_STREAM.rawValue }.count >= 20
                    }
                }
                let refused = halfOpen.map { entry in
                    entry.ids.filter { entry.client.replies[$0]!.resetCode == NGHTTP2_REFUSED_STREAM.rawValue }.count
                }
                let idleStillOpen = idle.filter(\.isOpen).count
                tally.stop()
                try await group.waitForAll()

                #expect(tally.peakRSS < 256 << 20, "peak RSS \(tally.peakRSS >> 20) MiB")
                #expect(tally.failedCalls.isEmpty, "\(tally.failedCalls.prefix(3))")
                #expect(tally.goodCalls > 0)
                #expect(resetter.goawayCode == NGHTTP2_ENHANCE_YOUR_CALM.rawValue, "after \(resetsSent) resets")
                #expect(pinger.goawayCode == NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
                #expect(refused == Array(repeating: 20, count: 10))
                #expect(idleStillOpen == 1000)
                print(
                    "flood: RSS \(startRSS >> 20) MiB at start, \(rssUnderFlood >> 20) MiB under flood, "
                        + "peak \(tally.peakRSS >> 20) MiB; \(tally.goodCalls) good calls, \(tally.failedCalls.count) failed; "
                        + "rapid reset: \(resetsSent) sent, GOAWAY after stream \(resetter.goawayLastStreamID ?? -1); refused streams per half-open client \(refused); "
                        + "each slow reader holds 10 unread responses of \(bigPage.serializedBytes().count) bytes")
                idle.removeAll()
                slowReaders.removeAll()
                halfOpen.removeAll()
            }
            #expect(try await good.query(Self.query).results.count > 0)
            await good.close()
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }
}
