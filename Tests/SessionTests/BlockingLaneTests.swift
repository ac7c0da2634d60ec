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
        // More callers than the pool has threads block on lanes until a task on the pool lets
        // them go. Were they holding the pool's threads, that task could not run and each would
        // give up at its timeout. (No timing: the pool may be busy with other tests.)
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let lanes = (0..<callers).map { BlockingLane(label: "test.block \($0)") }
        let gate = DispatchSemaphore(value: 0)
        let released = try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in lanes {
                group.addTask { try await lane.run { gate.wait(timeout: .now() + 20) == .success ? 1 : 0 } }
            }
            group.addTask {
                // Once the callers are blocked.
                try await Task.sleep(for: .milliseconds(100))
                for _ in lanes { gate.signal() }
                return 0
            }
            return try await group.reduce(0, +)
        }
        #expect(released == callers)
    }
}
