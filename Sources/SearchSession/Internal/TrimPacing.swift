/// When a write may queue a trim of the heap: not while the last one queued has not run, and
/// not within `interval` of it, so a steady write load trims once an interval, not once a batch
/// (each trim walks the heap's free blocks).
struct TrimPacing {
    /// The least time between two trims queued.
    let interval: Duration
    private var lastQueued: ContinuousClock.Instant?
    private var waiting = false

    init(interval: Duration) {
        self.interval = interval
    }

    /// Whether to queue a trim at `now`; when it says so, the trim counts as queued from then.
    mutating func claim(at now: ContinuousClock.Instant) -> Bool {
        if waiting { return false }
        if let lastQueued, now - lastQueued < interval { return false }
        lastQueued = now
        waiting = true
        return true
    }

    /// The trim last claimed has run.
    mutating func ran() {
        waiting = false
    }
}
