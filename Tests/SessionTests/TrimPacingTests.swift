import Testing

@testable import SearchSession

/// A write queues a trim of the heap only after a quiet interval, and never while one waits.
@Suite struct TrimPacingTests {
    @Test func aWriteAfterAQuietIntervalQueuesATrim() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        let first = pacing.claim(at: start)
        pacing.ran()
        let afterQuiet = pacing.claim(at: start + .seconds(2))
        #expect(first)
        #expect(afterQuiet)
    }

    @Test func noSecondTrimWhileOneWaits() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        let first = pacing.claim(at: start)
        // A quiet interval later, the first has still not run.
        let whileWaiting = pacing.claim(at: start + .seconds(5))
        pacing.ran()
        let afterItRan = pacing.claim(at: start + .seconds(10))
        #expect(first)
        #expect(!whileWaiting)
        #expect(afterItRan)
    }

    @Test func aSteadyWriteLoadQueuesOnlyItsFirstTrim() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        // Ten batches a second for five seconds, each queued trim running at once.
        var queued = [Int]()
        for batch in 0..<50 where pacing.claim(at: start + .milliseconds(100 * batch)) {
            queued.append(batch)
            pacing.ran()
        }
        #expect(queued == [0])
        // The load ends; the next write after a quiet second trims again.
        let afterTheLoad = pacing.claim(at: start + .milliseconds(4_900) + .seconds(1))
        #expect(afterTheLoad)
    }

    @Test func aWriteJustWithinTheIntervalQueuesNone() {
        var pacing = TrimPacing(interval: .seconds(1))
        let start = ContinuousClock.now
        _ = pacing.claim(at: start)
        pacing.ran()
        let soon = pacing.claim(at: start + .milliseconds(999))
        // Measured from that last write, not from the trim.
        let aSecondAfterTheTrim = pacing.claim(at: start + .milliseconds(1_500))
        #expect(!soon)
        #expect(!aSecondAfterTheTrim)
    }
}
