internal import Dispatch
internal import Foundation
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The catalog and its indexes, versioned, answering sheet queries; sessions build on it.
///
/// The engine holds the current ``CatalogSnapshot`` and recently replaced ones: a page token names
/// its snapshot, and a snapshot that handed out page tokens stays available for ``retention``
/// after it is replaced (at most ``maximumRetained`` of them), so paging stays consistent during
/// updates; one that handed out none is kept only ``tokenGrace``, and the oldest go early when the
/// segments only they hold pass ``retainedSegmentBudget``. A replaced snapshot drops its derived
/// caches; they are computed again if a token comes back.
///
/// Writes are serialised and cost what they write: an upsert adds a segment built from its batch
/// and sets delete bits on the entities it replaces; a delete only sets bits. Small segments are
/// merged in the background (see ``MergePolicy``); readers never wait for a write or a merge.
public final class SearchEngine: Sendable {
    struct State {
        var current: CatalogSnapshot
        /// The fingerprint of the catalog file the current catalog started from.
        var baseline: String
        /// The catalog file's stamp that vouches for `baseline`, kept in the manifest.
        var baselineStamp: FileStamp?
        var retired: [(snapshot: CatalogSnapshot, at: ContinuousClock.Instant)] = []
        /// The next snapshot's generation: every snapshot of the engine has its own.
        var nextGeneration: UInt64 = 2
        /// The snapshot the last install replaced, still with what it derived (see ``install(_:)``);
        /// weak, so it pins no segments of its own: once neither a search nor the retired list
        /// holds it, it is gone with what it derived.
        weak var justReplaced: CatalogSnapshot?
        /// Whether a merge is queued or running.
        var merging = false
        /// Whether merges wait (see ``holdMerges()``).
        var mergesHeld = false
        /// Which writes queue a trim of the heap (see ``returnMemoryAfterWrite()``).
        var writeTrims = TrimPacing(interval: .seconds(1))
        /// The files checkpoints wrote for heap segments, by segment serial.
        var persisted: [UInt64: String] = [:]
        /// The catalog file's bad lines, kept for the manifest.
        var badLines: [CatalogLineError] = []
    }

    let state: Mutex<State>
    /// Serialises writers, so the log's order is the order snapshots are built in.
    private let updateLock = Mutex<Void>(())
    /// Where writes become durable before they are applied; `nil` keeps them in memory only.
    public let log: CatalogLog?
    /// Where segments are kept as mapped files (and, with a log, checkpointed); `nil` keeps them
    /// on the heap.
    let index: IndexDirectory?
    /// How long a replaced snapshot stays available to page tokens.
    public let retention: Duration
    /// The most replaced snapshots kept.
    public let maximumRetained: Int
    /// When small segments are merged.
    let mergePolicy: MergePolicy
    /// Merges run here, behind searches (see ``BlockingLane``).
    private let mergeLane = BlockingLane(label: "vi-continue.segment-merge", background: true)
    /// Where a write's log append (its fsync) runs while the write builds its snapshot; none
    /// without a log.
    private let logLane: BlockingLane?
    /// One merge at a time, whoever runs it (the background queue or ``mergeUntilSettled()``).
    private let mergeLock = Mutex<Void>(())
    /// One checkpoint at a time: each writes files and then the manifest naming them.
    let checkpointLock = Mutex<Void>(())
    /// Recent evaluations, so a search's next pages reuse its ranking and facets.
    let evaluations = EvaluationCache(budget: defaultEvaluationCacheMiB << 20)
    /// Sheet queries and searches running now: one alone may split its matching and counting
    /// across two cores; several already keep the cores busy, and splitting would only add the
    /// hand-over and the merge.
    private let searchesRunning = Atomic<Int>(0)

    /// Runs `body` counted among the running searches, telling it whether it runs alone.
    func counted<T, E: Error>(_ body: (_ alone: Bool) throws(E) -> T) throws(E) -> T {
        let running = searchesRunning.add(1, ordering: .relaxed).newValue
        defer { searchesRunning.subtract(1, ordering: .relaxed) }
        return try body(running == 1)
    }

    /// Sets the most bytes the recent evaluations that later pages reuse may hold
    /// (``defaultEvaluationCacheMiB`` unless set); 0 evaluates every page afresh.
    public func limitEvaluationCache(toBytes bytes: Int) { evaluations.limit(toBytes: bytes) }

    /// The evaluation cache's budget unless set, in MiB: about a thousand recent searches that
    /// have a next page, on a catalog of forty facets (5–7 KB an entry on sparse-100k, where 12
    /// MiB held about 1,300 at 10 KB before facet values were bit-packed). The cache stays at its
    /// budget (it drops one entry a store), so the budget is what it adds to the heap, plus the
    /// allocator's share.
    public static let defaultEvaluationCacheMiB = 6
    let nowMs: @Sendable () -> Int64

    /// The day sheet answers treat as today, in days since the Unix epoch, when fixed; `.min` for
    /// the clock's day.
    private let fixedDay = Atomic<Int64>(.min)

    /// Fixes the day "upcoming" is computed for (a reproducible demo, tests that must not depend
    /// on the date they run), or gives it back to the clock with `nil`. Only the calendar moves:
    /// session expiry and snapshot retention keep the clock.
    public func fixToday(_ day: CalendarDay?) { fixedDay.store(day?.daysSinceEpoch ?? .min, ordering: .relaxed) }

    /// Today for sheet answers: the fixed day, else the clock's (UTC).
    public var calendarToday: CalendarDay {
        let fixed = fixedDay.load(ordering: .relaxed)
        return fixed != .min ? CalendarDay(daysSinceEpoch: fixed) : CalendarDay(unixMs: nowMs())
    }

    /// Creates an engine over a loaded catalog file (its rejected lines are the caller's to report),
    /// keeping writes in memory only; the first version is 1.
    ///
    /// - Parameters:
    ///   - catalog: Entities and synonyms.
    ///   - retention: How long replaced snapshots stay available to page tokens.
    ///   - maximumRetained: The most replaced snapshots kept.
    ///   - nowMs: The clock, in Unix milliseconds (tests pass their own).
    public convenience init(
        catalog: CatalogFile, retention: Duration = .seconds(900), maximumRetained: Int = 1024,
        nowMs: @escaping @Sendable () -> Int64 = SearchEngine.systemNowMs
    ) {
        let (entities, _) = Self.accept(catalog.entities, dimensions: [:])
        self.init(
            current: CatalogSnapshot(version: 1, entities: entities, synonyms: catalog.synonyms),
            baseline: catalog.fingerprint, nextGeneration: 2, log: nil, index: nil, retention: retention,
            maximumRetained: maximumRetained, nowMs: nowMs)
    }

    /// Creates an engine whose writes are durable in `log`: the catalog file plus the changes the
    /// log holds for it (see ``CatalogLog`` for how they combine). The version is the log's
    /// position, so it survives restarts.
    ///
    /// - Parameters:
    ///   - catalog: The catalog file, with its fingerprint.
    ///   - log: The durable log of writes.
    ///   - retention: How long replaced snapshots stay available to page tokens.
    ///   - maximumRetained: The most replaced snapshots kept.
    ///   - nowMs: The clock, in Unix milliseconds.
    /// - Throws: ``SearchError/Code/storage`` when the log cannot be read or written.
    public convenience init(
        catalog: CatalogFile, log: CatalogLog, retention: Duration = .seconds(900), maximumRetained: Int = 1024,
        nowMs: @escaping @Sendable () -> Int64 = SearchEngine.systemNowMs
    ) throws(SearchError) {
        let recovery = try log.recover(fingerprint: catalog.fingerprint)
        let (accepted, _) = Self.accept(catalog.entities, dimensions: [:])
        let base = CatalogSnapshot(version: recovery.version, entities: accepted, synonyms: catalog.synonyms)
        let (current, generation) = Self.replay(try log.foldedChanges() + recovery.changes, onto: base, store: nil)
        self.init(
            current: current, baseline: catalog.fingerprint, nextGeneration: generation, log: log, index: nil,
            retention: retention, maximumRetained: maximumRetained, nowMs: nowMs)
    }

    init(
        current: CatalogSnapshot, baseline: String, nextGeneration: UInt64, log: CatalogLog?, index: IndexDirectory?,
        retention: Duration, maximumRetained: Int, tokenGrace: Duration = .seconds(10),
        retainedSegmentBudget: Int? = nil, mergePolicy: MergePolicy = MergePolicy(),
        nowMs: @escaping @Sendable () -> Int64
    ) {
        state = Mutex(State(current: current, baseline: baseline, nextGeneration: nextGeneration))
        self.log = log
        logLane = log == nil ? nil : BlockingLane(label: "vi-continue.catalog-log")
        self.index = index
        self.retention = retention
        self.maximumRetained = maximumRetained
        self.tokenGrace = tokenGrace
        self.retainedSegmentBudget = retainedSegmentBudget
        self.mergePolicy = mergePolicy
        self.nowMs = nowMs
    }

    /// Applies logged changes to a snapshot as they were applied live (a segment per upsert,
    /// merged as the policy says), so the recovered index is the one the writes built.
    ///
    /// - Returns: The snapshot after the changes, and the next generation to use.
    static func replay(
        _ changes: [(position: UInt64, change: CatalogChange)], onto base: CatalogSnapshot,
        store: ((Segment) -> Segment)?
    ) -> (CatalogSnapshot, UInt64) {
        let policy = MergePolicy()
        var current = base
        var generation = base.generation + 1
        for (position, change) in changes {
            current = current.applying(change, version: position, generation: generation).0
            generation += 1
            while let run = policy.segmentsToMerge(in: current),
                let merged = SegmentMerge(run, of: current, store: store).install(into: current, generation: generation)
            {
                current = merged
                generation += 1
            }
        }
        return (current, generation)
    }

    /// Creates an engine over entities and synonym groups.
    public convenience init(entities: [Entity], synonyms: [[String]] = []) {
        self.init(catalog: CatalogFile(entities: entities, synonyms: synonyms, errors: []))
    }

    /// The system clock in Unix milliseconds.
    @Sendable public static func systemNowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The snapshot new queries use.
    public var snapshot: CatalogSnapshot { state.withLock { $0.current } }

    /// The newest snapshot of a version, if it is current or still retained.
    public func snapshot(version: UInt64) -> CatalogSnapshot? {
        state.withLock { state in
            if state.current.version == version { return state.current }
            return state.retired.last { $0.snapshot.version == version }?.snapshot
        }
    }

    /// Exactly the snapshot a page token names, if it is current or still retained.
    func snapshot(version: UInt64, generation: UInt64) -> CatalogSnapshot? {
        state.withLock { state in
            if state.current.version == version && state.current.generation == generation { return state.current }
            return state.retired.last { $0.snapshot.version == version && $0.snapshot.generation == generation }?
                .snapshot
        }
    }

    /// Inserts or replaces entities (whole), all or nothing; durable (with a log) and visible to
    /// new queries when this returns.
    ///
    /// - Parameter batch: The entities; one with the type and id of an existing entity replaces it,
    ///   and a later one in the batch with the same reference wins.
    /// - Returns: How many were applied and the new version.
    /// - Throws: ``SearchError/Code/invalidArgument`` naming every bad entity by its batch index
    ///   (nothing is applied); ``SearchError/Code/storage`` when the log cannot take the batch.
    @discardableResult
    public func upsert(_ batch: [Entity]) throws(SearchError) -> CatalogUpdate {
        try update { old throws(SearchError) in try Self.upsertChange(batch, on: old) }
    }

    /// The change an upsert of `batch` makes to `snapshot`: its accepted entities, or `nil` for
    /// an empty batch.
    ///
    /// - Throws: ``SearchError/Code/invalidArgument`` naming every bad entity.
    static func upsertChange(
        _ batch: [Entity], on snapshot: CatalogSnapshot
    ) throws(SearchError) -> (CatalogChange?, [CatalogUpdate.EntityError]) {
        var dimensions = [String: Int]()
        for entity in batch {
            for print in entity.prints where dimensions[print.model] == nil {
                if let known = snapshot.dimension(ofModel: print.model) { dimensions[print.model] = known }
            }
        }
        let (accepted, errors) = Self.accept(batch, dimensions: dimensions)
        if !errors.isEmpty { throw Self.rejection(errors, batchSize: batch.count) }
        return (accepted.isEmpty ? nil : .upsert(accepted), [])
    }

    /// Removes entities, as one batch; references not in the catalog are reported and skipped.
    ///
    /// - Returns: How many were removed, the version, and the references that were not there.
    /// - Throws: ``SearchError/Code/invalidArgument`` for a reference without type or id (nothing
    ///   is removed); ``SearchError/Code/storage`` when the log cannot take the batch.
    @discardableResult
    public func delete(_ refs: [EntityRef]) throws(SearchError) -> CatalogUpdate {
        try update { old throws(SearchError) in try Self.deleteChange(refs, on: old) }
    }

    /// The change a delete of `refs` makes to `snapshot`, and the references it does not hold.
    ///
    /// - Throws: ``SearchError/Code/invalidArgument`` for a reference without type or id.
    static func deleteChange(
        _ refs: [EntityRef], on snapshot: CatalogSnapshot
    ) throws(SearchError) -> (CatalogChange?, [CatalogUpdate.EntityError]) {
        if let bad = refs.firstIndex(where: { $0.type.isEmpty || $0.id.isEmpty }) {
            throw .invalid("entity \(bad) of the batch needs a type and an id; nothing was removed")
        }
        var remove = [EntityRef]()
        var seen = Set<EntityRef>()
        var errors = [CatalogUpdate.EntityError]()
        for (i, ref) in refs.enumerated() {
            if snapshot.doc(of: ref) == nil || !seen.insert(ref).inserted {
                errors.append(.init(index: i, entity: ref, message: "no entity \(ref) in the catalog"))
            } else {
                remove.append(ref)
            }
        }
        return (remove.isEmpty ? nil : .delete(remove), errors)
    }

    /// Applies changes another writer made durable elsewhere (a shared log every instance
    /// follows), in their log order, each as the version its position gives; an engine with a
    /// log of its own never takes them.
    ///
    /// Segments are merged right after each change, as the policy says, not in the background:
    /// so every instance that applied the same changes to the same file has the same segments
    /// and the same generations, and a page token handed out by one pages on another. (An
    /// instance that caught up from the folded state has its own; its tokens elsewhere ask to
    /// start again from page 1.)
    ///
    /// - Returns: How many entities each change inserted, replaced or removed.
    func applyFollowed(_ changes: [(version: UInt64, change: CatalogChange)]) -> [Int] {
        precondition(log == nil, "an engine with its own log does not follow another")
        let store = index.map { index in { (segment: Segment) in (try? index.store(segment)) ?? segment } }
        var counts = [Int]()
        var merged = false
        updateLock.withLock { _ in
            for (version, change) in changes {
                let old = snapshot
                install { generation in
                    let (next, count) = old.applying(change, version: version, generation: generation)
                    counts.append(count)
                    return next
                }
                while let run = mergePolicy.segmentsToMerge(in: snapshot) {
                    let before = snapshot
                    let merge = SegmentMerge(run, of: before, store: store)
                    install { generation in merge.install(into: before, generation: generation) }
                    if snapshot === before { break }
                    merged = true
                }
            }
        }
        if merged {
            releaseFreeMemory()
            mergeLane.enqueue { [self] in prepareCurrentDerived() }
        }
        return counts
    }

    /// Replaces the whole catalog, e.g. after the catalog file was reloaded; with a log, the file
    /// starts a new baseline there (the writes before it are dropped). A file with the same bytes
    /// as the current baseline (touched, or written again unchanged) changes nothing, so the
    /// writes made on top of it stay.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the log cannot record the new baseline.
    @discardableResult
    public func replace(with file: CatalogFile) throws(SearchError) -> CatalogUpdate {
        let update = try updateLock.withLock { _ throws(SearchError) -> CatalogUpdate in
            let old = snapshot
            let (accepted, errors) = Self.accept(file.entities, dimensions: [:])
            if state.withLock({ $0.baseline }) == file.fingerprint {
                // The same bytes under a new stamp (touched, copied back): the next checkpoint's
                // manifest vouches with the new stamp.
                if let stamp = file.stamp { state.withLock { $0.baselineStamp = stamp } }
                return CatalogUpdate(applied: 0, catalogVersion: old.version, errors: errors)
            }
            let version = try log?.startBaseline(fingerprint: file.fingerprint) ?? old.version + 1
            let analyzer = Analyzer(synonyms: file.synonyms)
            let built = Segment(entities: accepted, analyzer: analyzer)
            let segment = (try? index?.store(built)) ?? built
            install { generation in
                CatalogSnapshot(
                    version: version, generation: generation, synonyms: file.synonyms, analyzer: analyzer,
                    segments: [segment], deletes: [DeleteSet(documents: segment.count)])
            }
            state.withLock {
                $0.baseline = file.fingerprint
                $0.baselineStamp = file.stamp
                $0.badLines = file.errors
            }
            return CatalogUpdate(applied: accepted.count, catalogVersion: version, errors: errors)
        }
        // The next start maps the reloaded index instead of parsing the file again.
        if log != nil { try checkpoint() }
        return update
    }

    /// Runs one write: `body` turns the current snapshot into a change (or throws, and nothing
    /// happens); the change is made durable, then applied as the next snapshot.
    private func update(
        _ body: (CatalogSnapshot) throws(SearchError) -> (CatalogChange?, [CatalogUpdate.EntityError])
    ) throws(SearchError) -> CatalogUpdate {
        let update = try updateLock.withLock { _ throws(SearchError) -> CatalogUpdate in
            let old = snapshot
            let (change, errors) = try body(old)
            guard let change else { return CatalogUpdate(applied: 0, catalogVersion: old.version, errors: errors) }
            guard let log, let logLane else {
                var applied = 0
                install { generation in
                    let (next, count) = old.applying(change, version: old.version + 1, generation: generation)
                    applied = count
                    return next
                }
                return CatalogUpdate(applied: applied, catalogVersion: old.version + 1, errors: errors)
            }
            // The log's fsync waits on the disk, the next snapshot (the batch's segment, the
            // counts carried over) on a core: both at once, so a slow fsync (10–20 ms beside a
            // merge's writeback) hides behind the 10 ms or so of building archive-1m's next
            // snapshot instead of adding to it. The snapshot is installed only once the change
            // is durable.
            let appended = logLane.begin { () throws(SearchError) -> UInt64 in try log.append(change) }
            let (prepared, applied) = old.applying(change, version: old.version, generation: 0)
            let version = try appended.wait()
            install { generation in prepared.relabeled(version: version, generation: generation) }
            return CatalogUpdate(applied: applied, catalogVersion: version, errors: errors)
        }
        scheduleMerge()
        returnMemoryAfterWrite()
        return update
    }

    /// Queues a trim of the heap behind the write that just ended, when it follows a quiet second
    /// (see ``TrimPacing``).
    ///
    /// A write frees about what it carried over (the kept term counts, copied into the next
    /// snapshot) and what decoding and analysing its batch took: an upsert of 100 freed about 5
    /// MiB on a 100k catalog, which glibc kept resident until the next periodic trim, seconds
    /// later. The trim runs on the merge lane, after the write's answer; when a merge is queued
    /// or running there, the trim it ends with returns the write's memory too.
    private func returnMemoryAfterWrite() {
        let now = ContinuousClock.now
        let queue = state.withLock { state in
            guard state.writeTrims.claim(at: now) else { return false }
            if state.merging { state.writeTrims.ran() }
            return !state.merging
        }
        guard queue else { return }
        mergeLane.enqueue { [self] in
            releaseFreeMemory()
            state.withLock { $0.writeTrims.ran() }
        }
    }

    /// Makes the snapshot `make` builds (with its generation) current, and retires the old one for
    /// page tokens (see ``retention``). Called with the update lock held.
    private func install(_ make: (UInt64) -> CatalogSnapshot?) {
        let generation = state.withLock { state in
            defer { state.nextGeneration += 1 }
            return state.nextGeneration
        }
        guard let next = make(generation) else { return }
        let now = ContinuousClock.now
        let (replaced, dropping) = state.withLock { state in
            let old = state.current
            state.retired.append((old, now))
            state.current = next
            state.retired.removeAll { retired in
                let age = now - retired.at
                return age > retention
                    || (age > tokenGrace && !retired.snapshot.handedOutPageToken.load(ordering: .relaxed))
            }
            if state.retired.count > maximumRetained {
                state.retired.removeFirst(state.retired.count - maximumRetained)
            }
            // Under heavy writes, replaced snapshots pin segments merged away meanwhile: past the
            // budget the oldest go first (their tokens then ask to start again from page 1).
            let budget = retainedSegmentBudget ?? Self.defaultRetainedBytes(current: next)
            while state.retired.count > 1 && Self.pinnedBytes(state.retired, current: next) > budget {
                state.retired.removeFirst()
            }
            let replacedBefore = state.justReplaced
            state.justReplaced = old
            return (old, replacedBefore)
        }
        // A replaced snapshot drops what it derived (numbering, counts, links) only when the next
        // one is replaced: a search that took it just before this install and reads its numbering
        // or counts afterwards would otherwise compute them again, a whole catalog's worth, and
        // under steady writes those were the slowest captures (every one that straddled a write).
        // Only one replaced snapshot keeps them, so a burst of writes holds no more memory.
        dropping?.dropDerived()
        // Its term counts go at once: the new snapshot carries them over (a copy each, brought
        // up to date), and a search that straddled the write counts its hits as without them.
        replaced.stopKeepingTermCounts()
    }

    /// The most bytes of segments that only replaced snapshots hold (merged away since), or `nil`
    /// for ``defaultRetainedBytes(current:)``.
    let retainedSegmentBudget: Int?

    /// The default for ``retainedSegmentBudget``: a quarter of the current segments' bytes,
    /// within 8 and 64 MiB. Pinned segments are resident (a merge read them), so under steady
    /// writes a fixed 64 MiB doubled a 100k catalog's memory; a quarter bounds the growth to
    /// that share, at the price of page tokens that ask to start again sooner under such writes.
    /// Under 1,000 upserts/s a quarter still answers page 2 five seconds after page 1 (measured
    /// by `bench/rpc/write-load`); an eighth saved 13–18 MiB and refused every such token.
    static func defaultRetainedBytes(current: CatalogSnapshot) -> Int {
        let live = current.segments.reduce(0) { $0 + $1.region.count }
        return min(64 << 20, max(8 << 20, live / 4))
    }

    /// The bytes of the segments the retired snapshots hold that `current` does not.
    static func pinnedBytes(
        _ retired: [(snapshot: CatalogSnapshot, at: ContinuousClock.Instant)], current: CatalogSnapshot
    ) -> Int {
        var live = Set(current.segments.map { ObjectIdentifier($0) })
        var bytes = 0
        for (snapshot, _) in retired {
            for segment in snapshot.segments where live.insert(ObjectIdentifier(segment)).inserted {
                bytes += segment.region.count
            }
        }
        return bytes
    }

    /// How long a replaced snapshot that handed out no page token is kept anyway: a search that
    /// started on it just before the write may still hand one out (10 s).
    let tokenGrace: Duration

    // MARK: Merges

    /// Queues no more background merges from now on: for a benchmark that times searches over the
    /// small segments a write load leaves between merges, held at a count it chooses. (A follower's
    /// merges, made as it applies each change, are not held.)
    @_spi(Benchmarks) public func holdMerges() {
        state.withLock { $0.mergesHeld = true }
    }

    /// The current snapshot's segments, for benchmarks that report them.
    @_spi(Benchmarks) public var segmentCount: Int { snapshot.segments.count }

    /// Queues a merge when the policy asks for one and none is queued or running.
    private func scheduleMerge() {
        guard mergePolicy.segmentsToMerge(in: snapshot) != nil else { return }
        let start = state.withLock { state in
            if state.merging || state.mergesHeld { return false }
            state.merging = true
            return true
        }
        guard start else { return }
        mergeLane.enqueue { [self] in
            while mergeOnce() {}
            // Merges are what make a checkpoint worth writing; a failed one leaves the log and the
            // previous manifest, which still recover everything.
            if log != nil { try? checkpoint() }
            // A merge builds its segment on the heap before it is written and mapped.
            releaseFreeMemory()
            state.withLock { $0.merging = false }
            // A write between the last check and the flag may have asked for another merge.
            scheduleMerge()
        }
    }

    /// Merges the segments the policy picks now, if any; returns whether it merged.
    ///
    /// The merged segment is built from a snapshot without holding the update lock; installing it
    /// takes the lock and carries over the documents deleted meanwhile. The version stays (the
    /// catalog is the same), the generation is new, so page tokens of the old numbering still
    /// find their own snapshot.
    @discardableResult
    func mergeOnce() -> Bool {
        mergeLock.withLock { _ in mergeOnceLocked() }
    }

    private func mergeOnceLocked() -> Bool {
        let base = snapshot
        guard let run = mergePolicy.segmentsToMerge(in: base) else { return false }
        let index = self.index
        let merged = SegmentMerge(run, of: base, store: index.map { index in { (try? index.store($0)) ?? $0 } })
        updateLock.withLock { _ in
            install { generation in merged.install(into: snapshot, generation: generation) }
        }
        prepareCurrentDerived()
        return true
    }

    /// Merges until the policy asks for no more: for tests and benchmarks that want a settled index.
    public func mergeUntilSettled() {
        while mergeOnce() {}
    }

    /// Derives the current snapshot's facet numbering and counts now, behind searches (on the
    /// merge lane), so the first search does not: for a caller that wants its first search as
    /// fast as the rest and can hold them from the start. `serve` does not call it: at 100k
    /// entities they add 9–15 MiB before any search asks for them, and the first Capture pays
    /// 4–10 ms once instead; `search-bench` times it.
    @_spi(Benchmarks) public func warmUp() {
        mergeLane.enqueue { [self] in prepareCurrentDerived() }
    }

    /// Derives the current snapshot's numbering and counts. A merge's snapshot takes over what
    /// the one it replaced had (nothing, if no search had asked yet), and a write carries over
    /// only what its predecessor had: a write that lands meanwhile gets a snapshot of its own to
    /// derive.
    private func prepareCurrentDerived() {
        for _ in 0..<3 {
            let current = snapshot
            current.prepareDerived()
            if snapshot === current { return }
        }
    }

    /// Waits for the merges (and their checkpoint) queued so far to finish, and for those they
    /// queued in turn.
    public func waitUntilIdle() {
        // A merge run that ends may queue the next run behind this wait's own marker (a write
        // landed after its last look); it sets `merging` before it ends, so wait again then.
        repeat { mergeLane.waitUntilIdle() } while state.withLock({ $0.merging })
    }

    /// The error for a batch with bad entities: each named by its index and reason (the first
    /// ten), so a client can fix or drop them and send the batch again.
    static func rejection(_ errors: [CatalogUpdate.EntityError], batchSize: Int) -> SearchError {
        let shown = errors.prefix(10).map { "entity \($0.index) (\($0.entity)): \($0.message)" }
        let more = errors.count > shown.count ? "; and \(errors.count - shown.count) more" : ""
        return .invalid(
            "\(errors.count) of \(batchSize) entities are invalid, nothing was applied: "
                + shown.joined(separator: "; ") + more)
    }

    /// Why an entity cannot be indexed (invalid on its own, or a print whose length differs from
    /// its model's in `dimensions`), or `nil`; an accepted entity's print lengths join `dimensions`.
    static func problem(with entity: Entity, dimensions: inout [String: Int]) -> String? {
        do throws(SearchError) {
            try entity.validate()
        } catch {
            return error.message
        }
        for print in entity.prints {
            if let known = dimensions[print.model], known != print.values.count {
                return "print of model \(print.model) has \(print.values.count) values; the catalog's have \(known)"
            }
        }
        for print in entity.prints where dimensions[print.model] == nil { dimensions[print.model] = print.values.count }
        return nil
    }

    /// Validates a batch: each entity on its own, one entity per reference, one dimension per model.
    static func accept(_ batch: [Entity], dimensions: [String: Int]) -> ([Entity], [CatalogUpdate.EntityError]) {
        var dimensions = dimensions
        var accepted = [Entity]()
        var index = [EntityRef: Int]()
        var errors = [CatalogUpdate.EntityError]()
        for (position, entity) in batch.enumerated() {
            if let reason = problem(with: entity, dimensions: &dimensions) {
                errors.append(.init(index: position, entity: entity.ref, message: reason))
                continue
            }
            if let earlier = index[entity.ref] {
                accepted[earlier] = entity
            } else {
                index[entity.ref] = accepted.count
                accepted.append(entity)
            }
        }
        return (accepted, errors)
    }
}
