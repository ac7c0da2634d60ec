/// The facet counts a snapshot keeps for common terms (see
/// ``SearchEngine/termWorthCounting(_:hits:in:from:)``), within a budget of bytes, and which
/// terms deserve a place: those asked for most often lately.
///
/// A Capture load has more common labels than fit (archive-100k's queries ask for 25 terms of
/// 0.18 MB each against 4 MiB). Pushing out the oldest, or the least recently used, then
/// pushed out each in turn just before it came back, and every one counted its hits again. A
/// term that does not fit now takes the place only of terms asked for less often than itself;
/// the asks are halved every ``halvingPeriod``, so terms that stop coming lose their places.
struct KeptTermCounts: Sendable {
    /// The counts of each kept term.
    private(set) var counts: [String: CompactFacetCounts] = [:]
    /// The kept terms in the order they were kept.
    private(set) var order: [String] = []
    /// The bytes the kept counts hold.
    private(set) var bytes = 0
    /// How often each term was asked for lately, kept or not.
    private var asks: [String: Int] = [:]
    private var asksSinceHalving = 0

    /// Asks between halvings of the asks: long enough that a label asked for once in a few
    /// hundred Captures keeps its count, short enough that a change of load shows within a
    /// thousand.
    static let halvingPeriod = 1_024

    /// The counts kept for `term`, noting that they were asked for.
    mutating func ask(_ term: String) -> CompactFacetCounts? {
        asks[term, default: 0] += 1
        asksSinceHalving += 1
        if asksSinceHalving >= Self.halvingPeriod {
            asksSinceHalving = 0
            // A term asked for once goes from the list: it holds as many terms as a period asks.
            asks = asks.compactMapValues { $0 > 1 ? $0 / 2 : nil }
        }
        return counts[term]
    }

    /// Keeps `termCounts` for `term` when they fit in `budget`, or when the terms they would
    /// push out (least asked first; among equals, the longest kept) were all asked for less
    /// often than `term`.
    mutating func keep(_ termCounts: CompactFacetCounts, of term: String, budget: Int) {
        let needed = termCounts.bytes
        guard let pushedOut = placeFor(term, bytes: needed, budget: budget) else { return }
        for candidate in pushedOut {
            bytes -= counts[candidate]?.bytes ?? 0
            counts[candidate] = nil
        }
        if !pushedOut.isEmpty { order.removeAll { counts[$0] == nil } }
        counts[term] = termCounts
        order.append(term)
        bytes += needed
    }

    /// Whether counts of `bytes` bytes for `term` would be kept (see ``keep(_:of:budget:)``):
    /// asked before making them, which costs a pass over every value.
    func admits(_ term: String, bytes: Int, budget: Int) -> Bool {
        placeFor(term, bytes: bytes, budget: budget) != nil
    }

    /// The terms that counts of `needed` bytes for `term` would push out, or `nil` when they
    /// would not be kept.
    private func placeFor(_ term: String, bytes needed: Int, budget: Int) -> [String]? {
        guard counts[term] == nil, needed <= budget else { return nil }
        guard bytes + needed > budget else { return [] }
        let asked = asks[term, default: 0]
        let candidates = order.indices.sorted {
            let left = asks[order[$0], default: 0]
            let right = asks[order[$1], default: 0]
            return left != right ? left < right : $0 < $1
        }
        var pushedOut = [String]()
        var freed = 0
        for position in candidates where bytes - freed + needed > budget {
            let candidate = order[position]
            guard asks[candidate, default: 0] < asked else { return nil }
            pushedOut.append(candidate)
            freed += counts[candidate]?.bytes ?? 0
        }
        return pushedOut
    }

    /// The same terms and asks with each term's counts made by `update` (in the kept order), or
    /// left out when it returns `nil`.
    func updating(_ update: (String, CompactFacetCounts) -> CompactFacetCounts?) -> KeptTermCounts {
        var updated = self
        updated.counts = [:]
        updated.order = []
        updated.bytes = 0
        for term in order {
            guard let kept = counts[term], let counts = update(term, kept) else { continue }
            updated.counts[term] = counts
            updated.order.append(term)
            updated.bytes += counts.bytes
        }
        return updated
    }

    /// Drops every kept count (the asks stay).
    mutating func removeAll() {
        counts = [:]
        order = []
        bytes = 0
    }
}
