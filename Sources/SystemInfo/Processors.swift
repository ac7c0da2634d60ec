internal import Glibc

/// The processors this process may use.
public enum Processors {
    /// The processors this process may run on: its affinity mask (so `taskset -c 1`, or a
    /// one-core cpuset, means one however many the machine has), else the online count.
    public static var allowed: Int {
        if let allowed = allowedByMask, allowed > 0 { return allowed }
        return Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    private typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32

    /// The bits set in the affinity mask. Glibc declares `sched_getaffinity` only under
    /// `_GNU_SOURCE`, which the imported headers do not define, so it is looked up at run time.
    private static var allowedByMask: Int? {
        guard let symbol = dlsym(nil, "sched_getaffinity") else { return nil }
        let getAffinity = unsafeBitCast(symbol, to: GetAffinity.self)
        var set = cpu_set_t()
        let rc = withUnsafeMutableBytes(of: &set) { getAffinity(0, $0.count, $0.baseAddress!) }
        guard rc == 0 else { return nil }
        return withUnsafeBytes(of: &set) { bytes in bytes.reduce(0) { $0 + $1.nonzeroBitCount } }
    }
}
