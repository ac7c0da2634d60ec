internal import Glibc

/// A lower priority for threads doing background work (segment merges).
public enum BackgroundPriority {
    /// The nice value such threads take: with the scheduler's weights, a nice-10 thread gets
    /// about a tenth of a core that a nice-0 thread also wants, and the whole core otherwise.
    public static let niceness: Int32 = 10

    /// Lowers the calling thread's priority (not the process's): on a machine with few cores,
    /// background work then takes no core from the searches waiting for one.
    public static func lowerCallingThread() {
        // On Linux, setpriority with a thread id sets that thread's nice value alone.
        guard let thread = callingThreadID else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), niceness)
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
