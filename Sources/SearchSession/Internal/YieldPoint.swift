#if canImport(Glibc)
    internal import Glibc
#endif

/// Gives the core to any other runnable thread once a long piece of background work (building a
/// segment for a write or a merge, writing its file) has run for ``interval`` since it last did.
///
/// A search wakes several threads in turn (the connection's loop, a task, the session store),
/// and the scheduler lets a running thread finish its slice (milliseconds) before a woken one
/// of the same priority runs; the kernel does not preempt its own code here at all. On a server
/// pinned to one core, each hop of a Capture that landed during a write's 2–3 ms segment build
/// waited for it: Captures finishing next to a write had p99 7.5 ms against 1.90 ms for the rest
/// (`bench/search/README.md`, fourteenth pass). A `sched_yield` every 300 µs bounds that wait,
/// and costs about a microsecond when nothing else wants the core. Yielding more often (every
/// 100 µs) bought the Captures nothing measurable and made writes under load slower: each
/// yield can let a whole Capture run before the write goes on.
struct YieldPoint {
    /// How long work runs between yields.
    static let interval: UInt64 = 300_000  // ns

    private var last = YieldPoint.now()

    /// Yields if the work has run for ``interval`` since the last yield (or since it started).
    mutating func pass() {
        let now = Self.now()
        guard now &- last >= Self.interval else { return }
        sched_yield()
        last = Self.now()
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
