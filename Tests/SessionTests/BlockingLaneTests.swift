import Foundation
import SystemInfo
import Testing

@testable import SearchSession

/// Blocking work on lanes of its own: results and errors come back in order, a background lane
/// runs behind searches, and callers waiting on blocked lanes hold no thread of the pool.
@Suite struct BlockingLaneTests {
    final class Recorder: Sendable {
        private let lock = NSLock()
        nonisolated(unsafe) private var recorded = [Int]()
        func append(_ value: Int) { lock.withLock { recorded.append(value) } }
        var values: [Int] { lock.withLock { recorded } }
    }

    @Test func workRunsInOrderAndHandsBackItsResultOrError() async throws {
        let lane = BlockingLane(label: "test.order")
        let log = Recorder()
        for i in 0..<5 { lane.enqueue { log.append(i) } }
        #expect(try await lane.run { () throws(SearchError) in log.values.count } == 5)
        #expect(log.values == [0, 1, 2, 3, 4])
        await #expect(throws: SearchError.self) {
            try await lane.run { () throws(SearchError) in throw SearchError.invalid("no") }
        }
    }

    @Test func aBackgroundLanesThreadRunsAtALowerPriorityAndAPlainOneDoesNot() async throws {
        let background = BlockingLane(label: "test.background", background: true)
        let plain = BlockingLane(label: "test.plain")
        #expect(try await background.run { BackgroundPriority.callingThreadNiceness } == BackgroundPriority.niceness)
        #expect(try await plain.run { BackgroundPriority.callingThreadNiceness } == 0)
    }

    @Test func callersWaitingOnBlockedLanesLeaveThePoolFree() async throws {
        // More blocked callers than the pool has threads: were they holding them, the quick task
        // below would wait for the blocks to end.
        let lanes = (0..<8).map { BlockingLane(label: "test.block \($0)") }
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Duration.self) { group in
            for lane in lanes {
                group.addTask {
                    try await lane.run { usleep(400_000) }
                    return clock.now - start
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let quick = Task { clock.now - start }
            #expect(await quick.value < .milliseconds(300))
            for try await blocked in group { #expect(blocked >= .milliseconds(400)) }
        }
        // The lanes ran side by side: about one block, not eight.
        #expect(clock.now - start < .milliseconds(2_000))
    }
}
