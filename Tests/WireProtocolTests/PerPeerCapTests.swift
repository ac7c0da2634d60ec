import Foundation
import Testing

@testable import WireProtocol

/// The per-peer cap on running calls: one client, however many connections it opens, cannot
/// take every handler; others are not affected, and a finished call frees its place.
@Suite struct PerPeerCapTests {
    @Test(arguments: ["ipv4:1.2.3.4:5", "ipv6:[::1]:50051", "unix:/tmp/a.sock", "in-process"])
    func aPeerIsItsAddressWithoutThePort(peer: String) {
        let expected = [
            "ipv4:1.2.3.4:5": "ipv4:1.2.3.4", "ipv6:[::1]:50051": "ipv6:[::1]", "unix:/tmp/a.sock": "unix",
            "in-process": "in-process",
        ]
        #expect(ServerCore.peerKey(peer) == expected[peer])
    }

    @Test func callsPastTheCapAreResourceExhaustedAcrossConnectionsAndFinishedOnesFreeTheirPlace() async throws {
        let path = "/tmp/wire-cap-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        var configuration = ServerConfiguration(
            tcp: .init(host: "127.0.0.1", port: 0), unixSocketPath: path, eventLoopCount: 1)
        configuration.maxConcurrentCallsPerPeer = 2
        let observations = Observations()
        try await withServer(configuration, observations: observations) { _, addresses in
            // Three connections from one address: two hold a call each, the third is refused.
            let clients = (0..<3).map { _ in
                GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            }
            let sleepers = (0..<2).map { i in
                Task { try await clients[i].unary(path: "/test.Echo/Sleep", request: [UInt8(i)]) }
            }
            for _ in 0..<500 where observations.events.filter({ $0 == "sleep-started" }).count < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(observations.events.filter { $0 == "sleep-started" }.count == 2)
            let refused = await expectRPCError(.resourceExhausted) {
                _ = try await clients[2].unary(path: "/test.Echo/Unary", request: [9])
            }
            #expect(refused?.message.contains("already has 2 calls running") == true, "\(String(describing: refused))")
            // Another peer (the Unix socket's clients) is not held back by this one.
            let local = GRPCClient(target: .unix(path: path))
            #expect(try await local.unary(path: "/test.Echo/Unary", request: [7]).message == [7])
            await local.close()

            for sleeper in sleepers { sleeper.cancel() }
            // Once the handlers have ended, the address may call again.
            var again: [UInt8]?
            for _ in 0..<500 where again == nil {
                again = try? await clients[2].unary(path: "/test.Echo/Unary", request: [8]).message
                if again == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(again == [8])
            for client in clients { await client.close() }
        }
    }
}
