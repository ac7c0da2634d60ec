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

    @Test func begunWorkRunsBesideItsCallerAndHandsBackItsResultOrError() throws {
        let lane = BlockingLane(label: "test.begin")
        // The lane's work waits for its caller: it finishes only if the caller goes on meanwhile.
        let callerWent = DispatchSemaphore(value: 0)
        let pending = lane.begin { () -> Int32? in
            callerWent.wait()
            return BackgroundPriority.callingThreadID
        }
        let caller = BackgroundPriority.callingThreadID
        callerWent.signal()
        let worker = pending.wait()
        #expect(worker != nil && worker != caller)
        let failing = lane.begin { () throws(SearchError) -> Int in throw SearchError.invalid("no") }
        #expect(throws: SearchError.self) { try failing.wait() }
    }

    @Test func aBackgroundLanesThreadRunsAtALowerPriorityAndAPlainOneDoesNot() async throws {
        // Relative to this thread's: a lane's thread starts at its creator's nice value, and a
        // test run under `nice` starts above 0.
        let own = BackgroundPriority.callingThreadNiceness
        let background = BlockingLane(label: "test.background", background: true)
        let plain = BlockingLane(label: "test.plain")
        #expect(await plain.run { BackgroundPriority.callingThreadNiceness } == own)
        #expect(
            await background.run { BackgroundPriority.callingThreadNiceness }
                == max(own, BackgroundPriority.niceness))
        // And a short slice, where the kernel keeps one (Linux 6.12 and later report every
        // normal thread's): a search that wakes waits at most that long for the core.
        let plainSlice = await plain.run { BackgroundPriority.callingThreadSlice }
        let backgroundSlice = await background.run { BackgroundPriority.callingThreadSlice }
        if plainSlice != nil {
            #expect(backgroundSlice == BackgroundPriority.slice)
            #expect(plainSlice != BackgroundPriority.slice)
        } else {
            #expect(backgroundSlice == nil)
        }
    }

    @Test func workRunsOnTheLanesOwnThreadNotItsCallers() async throws {
        // More callers than the pool has threads, each on its own lane, twice: each lane's work
        // runs on one thread of its own, never on the (pool) thread of its caller, which is
        // suspended meanwhile. (No timing: the pool may be busy with other tests.)
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let lanes = (0..<callers).map { BlockingLane(label: "test.block \($0)") }
        let seen = try await withThrowingTaskGroup(of: (lane: Int, caller: Int32?, work: [Int32?]).self) { group in
            for (i, lane) in lanes.enumerated() {
                group.addTask {
                    let caller = BackgroundPriority.callingThreadID
                    var work = [Int32?]()
                    for _ in 0..<2 {
                        work.append(
                            await lane.run {
                                usleep(20_000)
                                return BackgroundPriority.callingThreadID
                            })
                    }
                    return (i, caller, work)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen.count == callers)
        for (lane, caller, work) in seen {
            #expect(work[0] != nil && work[0] == work[1], "lane \(lane)")
            #expect(work[0] != caller, "lane \(lane)")
        }
        #expect(Set(seen.map { $0.work[0] }).count == callers, "one thread per lane")
    }
}
