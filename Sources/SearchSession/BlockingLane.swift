internal import Dispatch
internal import Foundation
internal import Synchronization
internal import SystemInfo

/// A thread of its own for work that blocks (an fsync, a lock held across one) or that must
/// not compete with searches, so that async callers wait for it suspended instead of holding a
/// thread of Swift's cooperative pool.
///
/// The pool has a thread per allowed core (on a server pinned to one core, one): a catalog write
/// that waits 10–100 ms for its log's fsync on a pool thread stalls every Capture meanwhile,
/// even those that need nothing from the disk. Work on one lane runs one piece at a time, in
/// order. The thread is the lane's alone, so a background lane's lower priority stays with it
/// (a dispatch queue's worker threads also run the pool's jobs).
public final class BlockingLane: Sendable {
    private enum Item {
        case work(@Sendable () -> Void)
        case stop
    }

    /// What the thread and the lane share (the lane itself is not kept by its thread, so it can
    /// go away and stop the thread).
    private final class Queue: Sendable {
        let items = Mutex<[Item]>([])
        let ready = DispatchSemaphore(value: 0)

        func push(_ item: Item) {
            items.withLock { $0.append(item) }
            ready.signal()
        }

        func pop() -> Item {
            ready.wait()
            return items.withLock { $0.removeFirst() }
        }
    }

    private let queue = Queue()

    /// A lane named `label` (seen in debuggers and profiles); a `background` lane's thread runs
    /// at ``BackgroundPriority``, so searches go first (catalog writes, segment merges).
    public init(label: String, background: Bool = false) {
        let thread = Thread { [queue] in
            if background { BackgroundPriority.lowerCallingThread() }
            while case .work(let work) = queue.pop() { work() }
        }
        thread.name = label
        thread.start()
    }

    deinit {
        // The thread ends after the work already queued.
        queue.push(.stop)
    }

    /// Queues `work` and returns at once.
    public func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.push(.work(work))
    }

    /// Runs `work` on the lane and returns its result; the caller is suspended meanwhile.
    public func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            enqueue { continuation.resume(returning: Result { () throws(Failure) -> Value in try work() }) }
        }
        return try result.get()
    }

    /// Starts `work` on the lane and returns at once; the caller asks for its result when it
    /// needs it (``Pending/wait()``), doing work of its own meanwhile.
    public func begin<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) -> Pending<Value, Failure> {
        let pending = Pending<Value, Failure>()
        enqueue { pending.finish(Result { () throws(Failure) -> Value in try work() }) }
        return pending
    }

    /// The result of work ``begin(_:)`` started on a lane.
    public final class Pending<Value: Sendable, Failure: Error>: Sendable {
        private let result = Mutex<Result<Value, Failure>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate init() {}

        fileprivate func finish(_ outcome: Result<Value, Failure>) {
            result.withLock { $0 = outcome }
            done.signal()
        }

        /// Blocks until the work has run, and returns its result (or throws its error). Once.
        public func wait() throws(Failure) -> Value {
            done.wait()
            return try result.withLock { $0! }.get()
        }
    }

    /// Blocks until the work queued so far has run.
    public func waitUntilIdle() {
        let done = DispatchSemaphore(value: 0)
        enqueue { done.signal() }
        done.wait()
    }
}
