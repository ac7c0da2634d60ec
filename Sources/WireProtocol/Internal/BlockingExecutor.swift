internal import Glibc
import Synchronization

/// The threads on which the server runs what may block: handlers registered
/// ``ServerMethod/Execution/mayBlock`` (as a task executor, so their awaits come back here) and
/// the web gateway's file reads. Never an event loop's thread, never Swift's cooperative pool,
/// whose few threads every task of the process shares.
///
/// Threads start as work arrives, up to `maximumThreads`, and end after `idleTimeout` without
/// any; so a server that never blocks has none, and nothing needs stopping.
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    private enum Item {
        case job(UnownedJob)
        case work(@Sendable () -> Void)
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var threads = 0
        /// Threads waiting for work (or woken and about to take it).
        var idle = 0

        var waiting: Int { items.count - head }

        mutating func pop() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    /// The threads of every blocking pool now running, by `pthread_self` (Glibc's Swift module
    /// does not import `pthread_setname_np`, so they are told apart by identity, not by name).
    private static let blockingThreads = Mutex<Set<UInt>>([])

    let maximumThreads: Int
    let idleTimeout: Duration
    private let state = Mutex(State())
    /// Counts items not yet taken; heap-allocated, as a semaphore must not move.
    private let ready: UnsafeMutablePointer<sem_t>

    init(maximumThreads: Int, idleTimeout: Duration = .seconds(10)) {
        precondition(maximumThreads > 0, "a blocking pool needs a thread")
        self.maximumThreads = maximumThreads
        self.idleTimeout = idleTimeout
        ready = .allocate(capacity: 1)
        sem_init(ready, 0, 0)
    }

    deinit {
        // Threads hold the executor while they run, so none is left when it goes.
        sem_destroy(ready)
        ready.deallocate()
    }

    /// The threads this pool has now (working or idle).
    var threadCount: Int { state.withLock { $0.threads } }

    /// Whether the calling thread is one of a blocking pool's.
    static var isCurrentThreadBlocking: Bool {
        let current = UInt(pthread_self())
        return blockingThreads.withLock { $0.contains(current) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `work` on a blocking thread, soon.
    func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.work(work))
    }

    private func submit(_ item: Item) {
        let startThread = state.withLock { state in
            state.items.append(item)
            guard state.waiting > state.idle, state.threads < maximumThreads else { return false }
            state.threads += 1
            return true
        }
        sem_post(ready)
        if startThread { spawn() }
    }

    private func spawn() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { argument in
                let executor = Unmanaged<BlockingExecutor>.fromOpaque(argument!).takeRetainedValue()
                let current = UInt(pthread_self())
                _ = BlockingExecutor.blockingThreads.withLock { $0.insert(current) }
                executor.run()
                _ = BlockingExecutor.blockingThreads.withLock { $0.remove(current) }
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(thread)
    }

    /// A thread's life: take items until none comes for `idleTimeout`.
    private func run() {
        while true {
            state.withLock { $0.idle += 1 }
            let woken = waitForItem()
            let next: Item?? = state.withLock { state in
                state.idle -= 1
                if let item = state.pop() { return .some(item) }
                if woken { return .some(nil) }  // another thread took it: wait again
                state.threads -= 1
                return nil
            }
            guard let next else { return }
            switch next {
            case .job(let job)?: job.runSynchronously(on: asUnownedTaskExecutor())
            case .work(let work)?: work()
            case nil: continue
            }
        }
    }

    /// Waits on the semaphore for up to `idleTimeout`; false when the time ran out.
    private func waitForItem() -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = idleTimeout.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        while true {
            if sem_timedwait(ready, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
