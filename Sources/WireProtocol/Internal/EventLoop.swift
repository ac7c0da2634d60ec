internal import CNghttp2
internal import Glibc
import Synchronization

/// Something registered with an event loop for readiness of one file descriptor.
protocol EventHandler: AnyObject {
    /// Called on the loop thread with the `epoll` event mask.
    func handleEvent(_ events: UInt32)
}

/// A one-shot timer on an event loop; cancelling only marks it.
final class LoopTimer {
    let deadline: ContinuousClock.Instant
    var action: (() -> Void)?
    init(deadline: ContinuousClock.Instant, action: @escaping () -> Void) {
        self.deadline = deadline
        self.action = action
    }
    /// Stops the timer from firing; loop thread only.
    func cancel() { action = nil }
}

/// One thread running `epoll_wait`, with an `eventfd` so other threads can hand it work.
///
/// Everything registered with a loop, and every nghttp2 session, is touched only on its thread;
/// other threads reach it through `execute(_:)`.
///
/// With a busy-poll window the loop need not go to sleep right after handling I/O: it keeps
/// polling without blocking for a while, so the next request of a client that answers quickly
/// is picked up without the thread's wake-up latency (tens of microseconds on a VM). How long is
/// learnt from the traffic (``AdaptivePollWindow``), up to the configured window; an idle loop,
/// or one whose requests are far apart, sleeps at once.
final class EventLoop: @unchecked Sendable {
    private struct Pending {
        var tasks: [@Sendable () -> Void] = []
        var wakeupPending = false
        var stopping = false
    }

    private let epfd: Int32
    private let wakeFD: Int32
    private let pending = Mutex(Pending())
    private let threadID = Atomic<UInt>(0)
    private var thread: pthread_t?
    private var handlers: [Int32: any EventHandler] = [:]
    private var timers: [LoopTimer] = []  // a binary min-heap on deadline
    private var dirty: [H2Connection] = []
    private var deferred: [H2Connection] = []
    /// How long the loop keeps polling after its last I/O or task before it sleeps, within the
    /// configured window; a zero window never spins.
    private var pollWindow: AdaptivePollWindow
    /// When the loop last handled a descriptor event or a task; the busy-poll window counts from here.
    private var lastActivity = ContinuousClock.now
    /// A read buffer shared by every connection of the loop, so idle connections hold none.
    let readBuffer: UnsafeMutableRawBufferPointer
    let name: String

    init(name: String, busyPollWindow: Duration = .zero) {
        self.name = name
        pollWindow = AdaptivePollWindow(maximum: busyPollWindow)
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(epfd)
        close(wakeFD)
        readBuffer.deallocate()
    }

    /// How long the loop polls before sleeping now, as learnt from its traffic; loop thread only.
    var currentPollWindow: Duration { pollWindow.current }

    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Whether the caller may touch the loop's things: on its thread, or before that thread starts.
    var inLoopOrNotStarted: Bool {
        let owner = threadID.load(ordering: .relaxed)
        return owner == 0 || owner == UInt(pthread_self())
    }

    /// Starts the thread.
    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(
            &tid, nil,
            { arg in
                let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
                loop.threadID.store(UInt(pthread_self()), ordering: .relaxed)
                loop.run()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread = tid
    }

    /// The CPU time the loop's thread has used so far; zero before `start()`.
    ///
    /// Lets tests see that a loop sleeps when idle, whatever its busy-poll window.
    func threadCPUTime() -> Duration {
        guard let thread else { return .zero }
        var clock = clockid_t()
        var time = timespec()
        guard pthread_getcpuclockid(thread, &clock) == 0, clock_gettime(clock, &time) == 0 else { return .zero }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Stops the loop after the work queued so far and joins its thread; not from the loop.
    func stopAndJoin() {
        pending.withLock { $0.stopping = true }
        wake()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// Runs `task` on the loop thread, soon.
    func execute(_ task: @escaping @Sendable () -> Void) {
        let needsWake = pending.withLock { state -> Bool in
            state.tasks.append(task)
            if state.wakeupPending { return false }
            state.wakeupPending = true
            return true
        }
        if needsWake && !inLoop { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Registers a descriptor; loop thread only.
    func register(_ fd: Int32, handler: any EventHandler, events: UInt32) {
        assertInLoop()
        handlers[fd] = handler
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
    }

    /// Changes the events watched for a descriptor; loop thread only.
    func modify(_ fd: Int32, events: UInt32) {
        assertInLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event)
    }

    /// Forgets a descriptor (before it is closed); loop thread only.
    func unregister(_ fd: Int32) {
        assertInLoop()
        handlers[fd] = nil
        epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
    }

    /// Visits every registered handler; loop thread only.
    func forEachHandler(_ body: (any EventHandler) -> Void) {
        assertInLoop()
        for handler in Array(handlers.values) { body(handler) }
    }

    /// Schedules `action` at `deadline`; loop thread only.
    @discardableResult
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void) -> LoopTimer {
        assertInLoop()
        let timer = LoopTimer(deadline: deadline, action: action)
        timers.append(timer)
        var i = timers.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if timers[parent].deadline <= timers[i].deadline { break }
            timers.swapAt(parent, i)
            i = parent
        }
        return timer
    }

    private func popTimer() -> LoopTimer {
        let top = timers[0]
        let last = timers.removeLast()
        if !timers.isEmpty {
            timers[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < timers.count && timers[l].deadline < timers[m].deadline { m = l }
                if r < timers.count && timers[r].deadline < timers[m].deadline { m = r }
                if m == i { break }
                timers.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    /// Asks for the connection to be flushed at the end of this loop iteration, so all output
    /// produced in one iteration leaves in one write.
    func markDirty(_ connection: H2Connection) {
        assertInLoop()
        if connection.isDirty { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// The `epoll_wait` timeout in milliseconds: 0 with work waiting, else until the next timer.
    private func blockingTimeout() -> Int32 {
        let hasTasks = pending.withLock { !$0.tasks.isEmpty }
        if hasTasks || !dirty.isEmpty { return 0 }
        while let first = timers.first, first.action == nil { _ = popTimer() }
        guard let first = timers.first else { return -1 }
        let remaining = first.deadline - .now
        let (s, atto) = remaining.components
        let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, ms))
    }

    /// Polls without blocking until an event or a task arrives or the busy-poll window since the
    /// last activity ends.
    ///
    /// - Returns: The number of events in `events`; 0 when the window ended or a task arrived.
    private func busyPoll(_ events: UnsafeMutablePointer<epoll_event>, capacity: Int32) -> Int32 {
        let until = lastActivity + pollWindow.current
        // While spinning the loop looks at its task queue itself, so `execute` from another
        // thread need not write the eventfd (a syscall on that side, a wake-up on this one).
        let alreadyQueued = pending.withLock { state -> Bool in
            if !state.tasks.isEmpty { return true }
            state.wakeupPending = true
            return false
        }
        if alreadyQueued { return 0 }
        var n: Int32 = 0
        while true {
            n = epoll_wait(epfd, events, capacity, 0)
            if n != 0 { break }
            if pending.withLock({ !$0.tasks.isEmpty }) { break }
            if ContinuousClock.now >= until { break }
            // Spin politely: a thread waiting for this core (a handler task, another process)
            // runs first.
            sched_yield()
        }
        // Before sleeping, `execute` must wake the loop again; tasks queued meanwhile are run by
        // the caller, which clears the flag after taking them.
        pending.withLock { state in
            if state.tasks.isEmpty { state.wakeupPending = false }
        }
        return max(n, 0)
    }

    private func run() {
        let capacity: Int32 = 128
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        let spins = pollWindow.maximum > .zero
        while true {
            var timeout = blockingTimeout()
            var n: Int32 = 0
            // Out of work: the gap until the next event tells the poll window what spinning
            // would have been worth.
            let wentIdle = spins && timeout != 0
            if wentIdle && ContinuousClock.now - lastActivity < pollWindow.current {
                n = busyPoll(events, capacity: capacity)
                if n == 0 { timeout = blockingTimeout() }
            }
            if n == 0 { n = epoll_wait(epfd, events, capacity, timeout) }
            let woke = wentIdle ? ContinuousClock.now : lastActivity
            var active = false
            if n > 0 {
                for i in 0..<Int(n) {
                    let fd = events[i].data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                    } else if let handler = handlers[fd] {
                        active = true
                        handler.handleEvent(events[i].events)
                    }
                }
            }
            if !timers.isEmpty {
                let now = ContinuousClock.now
                while let first = timers.first, first.deadline <= now || first.action == nil {
                    let timer = popTimer()
                    if let action = timer.action {
                        timer.action = nil
                        action()
                    }
                }
            }
            let (tasks, stopping) = pending.withLock { state in
                let tasks = state.tasks
                state.tasks = []
                state.wakeupPending = false
                return (tasks, state.stopping)
            }
            if !tasks.isEmpty { active = true }
            for task in tasks { task() }
            flushDirty()
            if spins && active {
                if wentIdle { pollWindow.observe(gap: woke - lastActivity) }
                lastActivity = .now
            }
            if stopping {
                let remaining = pending.withLock { $0.tasks.isEmpty }
                if remaining { break }
            }
        }
        for handler in handlers.values {
            (handler as? H2Connection)?.close()
            (handler as? Listener)?.close()
        }
        flushDirty()
    }

    /// Re-queues a connection that still has output after its share of this iteration.
    func markDirtyNextIteration(_ connection: H2Connection) {
        deferred.append(connection)
    }

    private func flushDirty() {
        while !dirty.isEmpty {
            let batch = dirty
            dirty = []
            for connection in batch {
                connection.isDirty = false
                connection.flush()
            }
        }
        if !deferred.isEmpty {
            let later = deferred
            deferred = []
            for connection in later { markDirty(connection) }
        }
    }
}
