import Foundation
import Testing

@testable import WireProtocol

/// A quick throughput probe, not a benchmark with peers (that lives in bench/): run with
/// `WIRE_PROBE=1 swift test -Xswiftc -O --filter BenchmarkProbe` (optimised, in the debug
/// configuration: release builds are compiled for the static Swift runtime, which has no test
/// libraries).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["WIRE_PROBE"] != nil))
struct BenchmarkProbe {
    @Test(arguments: [1, 32])
    func unaryThroughput(inFlight: Int) async throws {
        try await withServer { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let request = [UInt8](repeating: 7, count: 100)
            _ = try await client.unary(path: "/test.Echo/Unary", request: request)
            let total = 20_000
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<inFlight {
                    group.addTask {
                        for _ in stride(from: worker, to: total, by: inFlight) {
                            _ = try await client.unary(path: "/test.Echo/Unary", request: request)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("probe: \(inFlight) in flight: \(Int(Double(total) / seconds)) calls/s")
            await client.close()
        }
    }

    @Test func serveForH2load() async throws {
        guard let seconds = ProcessInfo.processInfo.environment["WIRE_PROBE_SERVE"].flatMap(Int.init) else { return }
        try await withServer(ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 50051))) { _, _ in
            try await Task.sleep(for: .seconds(seconds))
        }
    }
}
