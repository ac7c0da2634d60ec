/// How long an event loop spins before it sleeps, learnt from the gaps between its bursts of work.
///
/// Spinning pays only when the next request comes soon after the last answer: a client with
/// one call in flight over loopback, or steady load. It wastes CPU when requests are sparse. So,
/// like the Linux halt-polling governor, the loop starts by not spinning and watches each gap
/// between the end of its work and the next event: a gap the current window would have missed but
/// the configured maximum would have caught doubles the window; a gap beyond the maximum halves
/// it (to zero below the first step). A loop with sparse traffic ends up sleeping at once, a loop
/// answering back-to-back calls spins up to the maximum.
struct AdaptivePollWindow {
    /// The largest window; zero turns spinning off.
    let maximum: Duration
    /// The current window.
    private(set) var current: Duration = .zero

    /// The first window tried when a gap shows spinning would have helped.
    static let firstStep = Duration.microseconds(10)

    init(maximum: Duration) {
        self.maximum = max(.zero, maximum)
    }

    /// Learns from one gap between the end of the loop's last work and the next event.
    mutating func observe(gap: Duration) {
        guard maximum > .zero, gap > current else { return }
        if gap <= maximum {
            current = min(maximum, max(current * 2, Self.firstStep))
        } else {
            current = current / 2
            if current < Self.firstStep { current = .zero }
        }
    }
}
