/// When a write may queue a trim of the heap: only a write that follows a quiet `interval` (no
/// write in it), and not while the last trim queued has not run. A steady write load then
/// queues one trim, at its first write, and leaves the rest to the periodic trim: each trim
/// walks the heap's free blocks with its arenas locked, so a search that allocates meanwhile
/// waits for it, and under steady writes the periodic trim already keeps the heap in bounds.
struct TrimPacing {
    /// How long without a write makes the next one worth a trim.
    let interval: Duration
    private var lastWrite: ContinuousClock.Instant?
    private var waiting = false

    init(interval: Duration) {
        self.interval = interval
    }

    /// Notes a write at `now` and says whether to queue a trim behind it; when it says so, the
    /// trim counts as queued from then.
    mutating func claim(at now: ContinuousClock.Instant) -> Bool {
        defer { lastWrite = now }
        if waiting { return false }
        if let lastWrite, now - lastWrite < interval { return false }
        waiting = true
        return true
    }

    /// The trim last claimed has run.
    mutating func ran() {
        waiting = false
    }
}
