internal import CThreadScheduling
internal import Glibc

/// A lower priority for threads doing background work (catalog writes, segment merges).
public enum BackgroundPriority {
    /// The nice value such threads take: with the scheduler's weights, a nice-10 thread gets
    /// about a tenth of a core that a nice-0 thread also wants, and the whole core otherwise.
    public static let niceness: Int32 = 10

    /// The scheduler slice such threads ask for: the longest a search thread that wakes waits
    /// for one of them to leave its core (Linux 6.12 and later; earlier kernels ignore it).
    public static let slice: Duration = .microseconds(100)

    /// Lowers the calling thread's priority (not the process's), in short slices: on a machine
    /// with few cores, background work then takes no core from the searches waiting for one.
    ///
    /// The nice value alone was not enough: a write or merge that held the core when a Capture
    /// arrived kept it for the rest of its slice (0.7 ms × (1 + log₂ cores) by default: 1.4 ms
    /// on two), and with writes going on those waits were most of the slowest Captures on a
    /// server pinned to one core. A short slice gives the core back within 0.1 ms. (The idle
    /// policy, `SCHED_IDLE`, gave it back at once too, but then writes ran only in the gaps
    /// between searches: their answers under a Capture load took 1.6 times as long as with the
    /// short slice.)
    public static func lowerCallingThread() {
        // On Linux, a thread id names that thread alone.
        guard let thread = callingThreadID else { return }
        let (seconds, attoseconds) = slice.components
        let nanoseconds = UInt64(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        if cts_set_thread_nice_and_slice(thread, niceness, nanoseconds) != 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), niceness)
        }
    }

    /// The calling thread's scheduler slice as the kernel reports it, or `nil` where it keeps
    /// none for normal threads (before Linux 6.12).
    public static var callingThreadSlice: Duration? {
        guard let thread = callingThreadID else { return nil }
        var nice: Int32 = 0
        var nanoseconds: UInt64 = 0
        guard cts_thread_nice_and_slice(thread, &nice, &nanoseconds) == 0, nanoseconds > 0 else { return nil }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// The calling thread's nice value.
    public static var callingThreadNiceness: Int32 {
        guard let thread = callingThreadID else { return 0 }
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread))
    }

    /// The calling thread's kernel id (`gettid`, looked up: the Glibc module does not export it).
    public static var callingThreadID: Int32? {
        typealias ThreadID = @convention(c) () -> Int32
        guard let symbol = dlsym(nil, "gettid") else { return nil }
        return unsafeBitCast(symbol, to: ThreadID.self)()
    }
}
