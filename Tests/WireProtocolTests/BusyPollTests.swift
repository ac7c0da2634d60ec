import Synchronization
import Testing

@testable import WireProtocol

/// `ServerConfiguration.busyPollWindow`: a loop keeps polling for a while after activity, then
/// sleeps; calls behave the same whatever the window.
@Suite struct BusyPollTests {
    /// Set by a task on the loop thread, read by the test.
    private final class RanFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Runs one task on a fresh loop, then reports the loop thread's CPU time over the window
    /// and over the idle time after it.
    private func cpuAfterOneTask(window: Duration) async throws -> (afterTask: Duration, idle: Duration) {
        let loop = EventLoop(name: "busy-poll-test", busyPollWindow: window)
        loop.start()
        defer { loop.stopAndJoin() }
        let ran = RanFlag()
        let start = loop.threadCPUTime()
        loop.execute { ran.value.store(true, ordering: .relaxed) }
        try await Task.sleep(for: window + .milliseconds(200))
        let didRun = ran.value.load(ordering: .relaxed)
        #expect(didRun)
        let afterTask = loop.threadCPUTime()
        try await Task.sleep(for: .milliseconds(300))
        let afterIdle = loop.threadCPUTime()
        return (afterTask - start, afterIdle - afterTask)
    }

    @Test func aLoopSpinsForItsWindowAfterActivityThenSleeps() async throws {
        let (afterTask, idle) = try await cpuAfterOneTask(window: .milliseconds(40))
        // Spinning for 40 ms costs milliseconds of CPU even on a busy machine; a loop that went
        // straight to sleep would have used a few microseconds.
        #expect(afterTask >= .milliseconds(2), "the loop did not spin: \(afterTask) of CPU")
        #expect(idle < .milliseconds(5), "an idle loop kept using CPU: \(idle) in 300 ms")
    }

    @Test func aZeroWindowNeverSpins() async throws {
        let (afterTask, idle) = try await cpuAfterOneTask(window: .zero)
        #expect(afterTask < .milliseconds(2), "a loop without a window used \(afterTask) after one task")
        #expect(idle < .milliseconds(5), "an idle loop kept using CPU: \(idle) in 300 ms")
    }

    @Test(arguments: [Duration.zero, .microseconds(100), .milliseconds(20)])
    func callsBehaveTheSameWithAnyWindow(window: Duration) async throws {
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.busyPollWindow = window
        try await withServer(configuration) { _, addresses in
            let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            // Back to back, so later requests arrive while the loop spins after the previous one.
            for i in 0..<50 {
                let response = try await client.unary(path: "/test.Echo/Unary", request: [UInt8(i)])
                #expect(response.message == [UInt8(i)])
            }
            // A handler that suspends finishes through `execute` from another thread, which a
            // spinning loop picks up without the eventfd.
            let slow = try await client.unary(path: "/test.Echo/Slow", request: [9])
            #expect(slow.message == [9])
            var messages = 0
            for try await message in try await client.serverStreaming(path: "/test.Echo/Stream", request: [0, 20]) {
                #expect(message.count == 100)
                messages += 1
            }
            #expect(messages == 20)
            await client.close()
        }
    }

    @Test func theDefaultWindowIsOff() {
        let configuration = ServerConfiguration()
        #expect(configuration.busyPollWindow == ServerConfiguration.defaultBusyPollWindow)
        #expect(configuration.busyPollWindow == .zero)
    }
}
