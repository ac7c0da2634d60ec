import Testing

@testable import SearchSession

/// A write queues a trim of the heap at most once an interval, and never while one waits.
@Suite struct TrimPacingTests {
    @Test func noSecondTrimWhileOneWaits() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        let first = pacing.claim(at: start)
        // Long past the interval, the first has still not run.
        let whileWaiting = pacing.claim(at: start + .seconds(5))
        pacing.ran()
        let afterItRan = pacing.claim(at: start + .seconds(5))
        #expect(first)
        #expect(!whileWaiting)
        #expect(afterItRan)
    }

    @Test func writesWithinTheIntervalQueueNone() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        let first = pacing.claim(at: start)
        pacing.ran()
        let soon = pacing.claim(at: start + .milliseconds(100))
        let justBefore = pacing.claim(at: start + .milliseconds(999))
        let atTheInterval = pacing.claim(at: start + .seconds(1))
        #expect(first)
        #expect(!soon)
        #expect(!justBefore)
        #expect(atTheInterval)
    }

    @Test func aSteadyWriteLoadTrimsOnceAnInterval() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        // Ten batches a second for five seconds, each queued trim running at once.
        var queued = 0
        for batch in 0..<50 where pacing.claim(at: start + .milliseconds(100 * batch)) {
            queued += 1
            pacing.ran()
        }
        #expect(queued == 5)
    }
}
