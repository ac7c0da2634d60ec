import Foundation
import Testing

@testable import WireProtocol

/// `ServerConfiguration.busyPollWindow`: a loop keeps polling after activity for as long as its
/// traffic makes worthwhile, then sleeps; calls behave the same whatever the window.
@Suite struct BusyPollTests {
    /// Posts `count` tasks to a fresh loop, `gap` apart (from a plain thread, so the gaps do not
    /// wait on the test's task pool), then reports the poll window the loop learnt and its
    /// thread's CPU time over an idle stretch once that window has run out.
    private func learn(
        tasks count: Int, gap: Duration, window: Duration
    ) async throws -> (learnt: Duration, idleCPU: Duration) {
        let loop = EventLoop(name: "busy-poll-test", busyPollWindow: window)
        loop.start()
        defer { loop.stopAndJoin() }
        let microseconds = UInt32(gap / .microseconds(1))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for _ in 0..<count {
                    loop.execute {}
                    usleep(microseconds)
                }
                done.resume()
            }
        }
        let learnt = await withCheckedContinuation { (answer: CheckedContinuation<Duration, Never>) in
            loop.execute { answer.resume(returning: loop.currentPollWindow) }
        }
        try await Task.sleep(for: window + .milliseconds(100))
        let before = loop.threadCPUTime()
        try await Task.sleep(for: .milliseconds(300))
        return (learnt, loop.threadCPUTime() - before)
    }

    @Test func aLoopWhoseWorkComesWithinItsWindowLearnsToPollAndSleepsWhenIdle() async throws {
        // Tasks about 1 ms apart under a 1 s window: the poll window doubles from 10 µs with each
        // gap it missed (a loaded machine only stretches the gaps, still well within 1 s). Eight
        // doublings reach 1 ms; 80 tasks leave room for the wake-ups a busy machine runs together
        // (several tasks in one turn of the loop count as one gap).
        let (learnt, idleCPU) = try await learn(tasks: 80, gap: .milliseconds(1), window: .seconds(1))
        #expect(learnt >= .milliseconds(1), "the loop learnt a poll window of \(learnt)")
        #expect(idleCPU < .milliseconds(5), "an idle loop kept using CPU: \(idleCPU) in 300 ms")
    }

    @Test func aLoopWhoseWorkComesFarApartDoesNotPoll() async throws {
        // Gaps of 20 ms never fit a 5 ms window: polling would only waste the CPU.
        let (learnt, idleCPU) = try await learn(tasks: 10, gap: .milliseconds(20), window: .milliseconds(5))
        #expect(learnt == .zero)
        #expect(idleCPU < .milliseconds(5), "an idle loop kept using CPU: \(idleCPU) in 300 ms")
    }

    @Test func aZeroWindowNeverPolls() async throws {
        let (learnt, idleCPU) = try await learn(tasks: 20, gap: .milliseconds(1), window: .zero)
        #expect(learnt == .zero)
        #expect(idleCPU < .milliseconds(5), "an idle loop kept using CPU: \(idleCPU) in 300 ms")
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

/// The rule behind the loop's poll window, gap by gap.
@Suite struct AdaptivePollWindowTests {
    @Test func itStartsClosedAndDoublesForGapsTheMaximumWouldCatch() {
        var window = AdaptivePollWindow(maximum: .microseconds(100))
        #expect(window.current == .zero)
        var seen: [Duration] = []
        for _ in 0..<6 {
            window.observe(gap: .microseconds(90))
            seen.append(window.current)
        }
        #expect(seen == [10, 20, 40, 80, 100, 100].map { .microseconds($0) })
    }

    @Test func gapsItAlreadyCoversChangeNothing() {
        var window = AdaptivePollWindow(maximum: .microseconds(100))
        for _ in 0..<3 { window.observe(gap: .microseconds(30)) }
        #expect(window.current == .microseconds(40))
        window.observe(gap: .microseconds(5))
        window.observe(gap: .microseconds(40))
        #expect(window.current == .microseconds(40))
    }

    @Test func gapsBeyondTheMaximumHalveItDownToNothing() {
        var window = AdaptivePollWindow(maximum: .microseconds(100))
        for _ in 0..<5 { window.observe(gap: .microseconds(90)) }
        #expect(window.current == .microseconds(100))
        var seen: [Duration] = []
        for _ in 0..<5 {
            window.observe(gap: .milliseconds(3))
            seen.append(window.current)
        }
        #expect(seen == [50, 25, 12.5, 0, 0].map { .nanoseconds(Int($0 * 1000)) })
    }

    @Test func aZeroMaximumNeverOpens() {
        var window = AdaptivePollWindow(maximum: .zero)
        for gap in [1, 10, 1000] { window.observe(gap: .microseconds(gap)) }
        #expect(window.current == .zero)
    }
}
