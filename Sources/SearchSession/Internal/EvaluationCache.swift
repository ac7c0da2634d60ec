internal import Synchronization

/// The last evaluations of refinements, so the next page of a search is cut from the ranking and
/// facets its first page computed instead of matching, counting and ordering again.
///
/// A page token pins its snapshot, so an evaluation keyed by the snapshot (version and
/// generation), the session and its refinement stays exact for every page of it. An entry keeps
/// the hits in order up to one page past a first page (``window`` past a later one: ten more
/// pages of 20) and the facets, packed (see ``PackedFacets``), so it costs a few kilobytes, not
/// the hit list; the least recently used entries go first past the budget.
final class EvaluationCache: Sendable {
    struct Key: Hashable {
        var session: String
        /// What the session holds that an evaluation reads (``contentHash(of:)``): a caller may
        /// pass another record under the same id.
        var content: UInt64
        var refinement: UInt64
        var version: UInt64
        var generation: UInt64
        var maxFacetValues: Int
        var maxFacets: Int
        var includedFacets: Set<String>
        /// The linker whose view of the snapshot was searched (it may leave entities out).
        var linker: ObjectIdentifier?
    }

    /// How many hits past its page an evaluation of a later page puts in order, so the next
    /// pages find them.
    static let window = 200

    private struct Entry {
        /// The evaluation without its facets and browse values, which are packed beside it.
        var evaluation: SearchEngine.Evaluation
        var facets: PackedFacets
        var browse: PackedFacetValues
        var bytes: Int
        var used: UInt64

        init(_ evaluation: SearchEngine.Evaluation, used: UInt64) {
            self.evaluation = evaluation
            self.evaluation.facets = []
            self.evaluation.moreFacets = []
            self.evaluation.browse = []
            self.evaluation.facetLabels = FacetLabels()
            facets = PackedFacets(
                evaluation.facets, moreFacets: evaluation.moreFacets, labels: evaluation.facetLabels)
            browse = PackedFacetValues(evaluation.browse)
            bytes = 512 + evaluation.hits.count * MemoryLayout<Candidate>.stride + facets.bytes + browse.bytes
            self.used = used
        }

        /// The evaluation as it was stored.
        var unpacked: SearchEngine.Evaluation {
            var whole = evaluation
            whole.facets = facets.facets
            whole.moreFacets = facets.moreFacets
            whole.browse = browse.all
            return whole
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        /// The most bytes the entries may hold (estimated from their hits and facet values).
        var budget: Int
        /// Every use of an entry in clock order, oldest first from `oldest` (those before it
        /// were walked by eviction): a use is current while its entry's `used` is still its
        /// clock, else a later use superseded it.
        var uses: [(key: Key, clock: UInt64)] = []
        var oldest = 0

        /// Notes a use of `key` at the current clock.
        mutating func noteUse(of key: Key) {
            uses.append((key, clock))
            // Walked and superseded uses go once the list is twice the entries: what is left is
            // one use an entry, so the next pass comes after as many new uses (amortized).
            if uses.count > 2 * entries.count + 1_024 {
                uses = uses[oldest...].filter { entries[$0.key]?.used == $0.clock }
                oldest = 0
            }
        }
    }

    private let state: Mutex<State>

    init(budget: Int) {
        state = Mutex(State(budget: budget))
    }

    /// Sets the most bytes the entries may hold; 0 keeps none.
    func limit(toBytes budget: Int) {
        let dropped = state.withLock { state in
            state.budget = max(0, budget)
            return Self.evict(&state)
        }
        withExtendedLifetime(dropped) {}
    }

    /// The evaluation of `key` if it holds the first `needed` hits (or all of them).
    func evaluation(_ key: Key, needed: Int) -> SearchEngine.Evaluation? {
        let found: Entry? = state.withLock { state in
            guard var entry = state.entries[key], entry.evaluation.hits.count >= min(needed, entry.evaluation.total)
            else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[key] = entry
            state.noteUse(of: key)
            state.hits += 1
            return entry
        }
        // Unpacked outside the lock: the entry is a value, other lookups need not wait.
        return found?.unpacked
    }

    /// Keeps `evaluation` for `key`, dropping the least recently used entries past the budget.
    func store(_ evaluation: SearchEngine.Evaluation, for key: Key) {
        // Packed outside the lock; its clock is set when it goes in.
        var entry = Entry(evaluation, used: 0)
        let bytes = entry.bytes
        let dropped = state.withLock { state -> [Entry] in
            guard bytes <= state.budget / 4 else { return [] }
            state.clock += 1
            entry.used = state.clock
            if let old = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= old.bytes
            }
            state.bytes += bytes
            state.noteUse(of: key)
            return Self.evict(&state)
        }
        // Freed outside the lock: other searches' lookups need not wait for it.
        withExtendedLifetime(dropped) {}
    }

    /// Drops the least recently used entries until the rest fit the budget, and returns them.
    ///
    /// A store past the budget drops about one entry, found by walking the uses in clock order
    /// (see ``State/uses``). Dropping a quarter of the cache at once (a sort of every entry's
    /// clock, then thousands of entries freed under the lock) was most of the slowest Captures
    /// under writes on shop-100k: each of them paid 1–2 ms for one such pass.
    private static func evict(_ state: inout State) -> [Entry] {
        var dropped = [Entry]()
        while state.bytes > state.budget, state.oldest < state.uses.count {
            let use = state.uses[state.oldest]
            state.oldest += 1
            guard let entry = state.entries[use.key], entry.used == use.clock else { continue }
            state.entries.removeValue(forKey: use.key)
            state.bytes -= entry.bytes
            dropped.append(entry)
        }
        return dropped
    }

    /// How many lookups found their evaluation (for tests and metrics).
    var hits: Int { state.withLock { $0.hits } }

    /// How many evaluations are held (for tests and metrics).
    var count: Int { state.withLock { $0.entries.count } }

    /// A hash of what an evaluation reads from a session: its labels, free text, prints, source,
    /// locale, print distance and picture match.
    static func contentHash(of session: SessionRecord) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            h ^= value
            h &*= 0x100_0000_01b3
        }
        func mix(_ text: String) {
            for byte in text.utf8 { mix(UInt64(byte)) }
            mix(0x1F)
        }
        for label in session.labels {
            mix(label.text)
            mix(UInt64(label.confidence.bitPattern))
        }
        mix(session.queryText)
        for print in session.prints {
            mix(print.model)
            for value in print.values { mix(UInt64(value.bitPattern)) }
        }
        // The raw value, not an interpolation: that reflects on the enum, on every call.
        mix(session.source.rawValue)
        mix(session.locale)
        // Pictures' matches farther than this are not hits: another distance, other hits.
        mix(session.maxDistance.map { UInt64($0.bitPattern) } ?? .max)
        if let match = session.pictureMatch {
            mix(match.entity.type)
            mix(match.entity.id)
            mix(UInt64(match.distance.bitPattern))
        }
        return h
    }

}
