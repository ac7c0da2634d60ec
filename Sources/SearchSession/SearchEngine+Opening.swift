internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Returns the allocator's free pages to the system, where the C library can (glibc's
/// `malloc_trim`, looked up at run time: Swift's Glibc module does not export it).
func releaseFreeMemory() {
    #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    #endif
}

extension SearchEngine {
    /// Hands the heap's free pages back to the system every `interval` until the task is
    /// cancelled (run it for the life of a server).
    ///
    /// Searches free what they allocate, but glibc keeps the pages of freed blocks resident
    /// between its other trims (after a merge, at the heap's top): at the end of a Capture load
    /// 4.5 MiB of recipes-100k's 28 MiB of heap was free, 15 of archive-100k's 61. A trim walks
    /// the free blocks (1.4 ms on archive-100k's heap during that load), on a thread of the pool.
    public static func returnFreeMemory(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            releaseFreeMemory()
        }
    }

    /// Bounds how much freed heap glibc keeps resident, for a long-running server: allocations
    /// from 4 MiB are mapped on their own, and a heap's free top past 8 MiB goes back to the
    /// system when a block is freed.
    ///
    /// By default glibc raises both thresholds as large blocks are freed (up to 32 and 64 MiB),
    /// and `malloc_trim` does not shrink the top of a thread's own arena: building the index on
    /// a worker thread then left 20–35 MiB of free memory resident on about one start in five.
    ///
    /// Threads also share at most two arenas (glibc's default is eight per core): each arena
    /// keeps its own free blocks, and with the server's event loops, the cooperative pool and the
    /// build and merge lanes each allocating in its own arena, a Capture load left 6 MiB more
    /// free memory resident than with one arena. (Seen on listings, the held-out catalog; with
    /// the term-count change beside it, sparse ended 5–10 MiB lower at the same latency.)
    /// Call it once, before opening the catalog.
    public static func boundAllocatorRetention() {
        #if canImport(Glibc)
            typealias SetOption = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: SetOption.self)
            let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD in <malloc.h>
            let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
            _ = mallopt(mmapThreshold, 4 << 20)
            _ = mallopt(trimThreshold, 8 << 20)
            let arenaMaximum: Int32 = -8  // M_ARENA_MAX
            _ = mallopt(arenaMaximum, 2)
        #endif
    }
}

/// What opening a catalog found: for the operator's start-up lines.
public struct CatalogOpening: Sendable {
    /// Entities in the catalog now.
    public var entities: Int
    /// The catalog file's bad lines (from the persisted index's manifest when it was reused).
    public var badLines: [CatalogLineError]
    /// Whether the persisted index was mapped instead of building one from the file.
    public var reusedIndex: Bool
    /// Logged writes applied on top.
    public var replayedChanges: Int
    /// The entity types of the catalog.
    public var entityTypes: [String]
    /// Whether the catalog file was read (for its fingerprint, or parsed); `false` when its stamp
    /// vouched for the fingerprint the persisted index was built from.
    public var readCatalogFile: Bool
}

extension SearchEngine {
    /// Opens the catalog of a file with its state in an index directory and, optionally, a log.
    ///
    /// When the directory's manifest was written for the same file bytes (and the log reaches its
    /// version), its segments are mapped and only the writes logged after it are replayed: the
    /// file is not parsed, and not even read while it has the stamp the manifest vouches with
    /// (see ``CatalogLoader/fingerprint(path:remembered:nowNs:)``; otherwise it is read once, for
    /// its fingerprint). Otherwise the file is parsed, the index built, written to the directory
    /// and mapped, then every logged write replayed on top. With a log the result is
    /// checkpointed, so the next start maps it.
    ///
    /// - Parameters:
    ///   - path: The catalog file (JSON Lines).
    ///   - log: Where writes are durable; `nil` keeps them in memory.
    ///   - index: Where segments live as files.
    ///   - retention: How long replaced snapshots stay available to page tokens.
    ///   - progress: Parsing progress, when the file is parsed.
    /// - Returns: The engine and what the opening found.
    /// - Throws: ``SearchError/Code/invalidCatalog`` when the file cannot be read;
    ///   ``SearchError/Code/storage`` when the log or the directory cannot be used.
    public static func open(
        catalogAt path: String, log: CatalogLog?, index: IndexDirectory, retention: Duration = .seconds(900),
        progress: ((CatalogLoadProgress) -> Void)? = nil
    ) throws(SearchError) -> (SearchEngine, CatalogOpening) {
        let manifest = log == nil ? nil : index.manifest()
        if log != nil { index.removeUnused(keeping: manifest) }
        let remembered = manifest.flatMap { manifest in manifest.baselineStamp.map { (manifest.baseline, $0) } }
        var taken = try CatalogLoader.fingerprint(path: path, remembered: remembered)
        let fingerprint = taken.value
        let recovery =
            try log?.recover(fingerprint: fingerprint)
            ?? CatalogLog.Recovery(changes: [], version: 1, startedBaseline: true)
        let store: (Segment) -> Segment = { (try? index.store($0)) ?? $0 }
        var base: CatalogSnapshot?
        var badLines = [CatalogLineError]()
        var synonyms = [[String]]()
        // An index from before the log's fold point lacks changes the log keeps only folded.
        if let manifest, manifest.baseline == fingerprint,
            manifest.version <= recovery.version, manifest.version >= recovery.folded, !recovery.startedBaseline,
            let mapped = try? index.segments(of: manifest)
        {
            synonyms = manifest.synonyms
            badLines = manifest.badLines
            base = CatalogSnapshot(
                version: manifest.version, generation: 1, synonyms: synonyms, analyzer: Analyzer(synonyms: synonyms),
                segments: mapped.map(\.0), deletes: mapped.map(\.1))
        }
        let reused = base != nil
        var changes = recovery.changes
        if base == nil {
            // Built from the file: the folded changes come first, then the ones after them.
            changes = try (log?.foldedChanges() ?? []) + changes
            // Entities go from the parser straight into the segment's columns: the catalog is
            // never in memory as entity values all at once.
            var builder = SegmentBuilder()
            var dimensions = [String: Int]()
            let file = try CatalogLoader.load(path: path, progress: progress) { entity in
                if problem(with: entity, dimensions: &dimensions) == nil { builder.add(entity) }
            }
            badLines = file.errors
            synonyms = file.synonyms
            // Bytes other than the fingerprinted ones (the file was written in between) are
            // vouched for by no stamp: the next start reads the file again.
            if file.fingerprint != fingerprint { taken.stamp = nil }
            let analyzer = Analyzer(synonyms: synonyms)
            let region = builder.finish(analyzer: analyzer)
            let localFeatures = builder.finishLocalFeatures()
            builder = SegmentBuilder()  // its columns are in the region now
            // The builder's own output always has a consistent shape.
            let segment = store(try! Segment(region, localFeatures: localFeatures))
            base = CatalogSnapshot(
                version: changes.first.map { $0.position - 1 } ?? recovery.version, generation: 1,
                synonyms: synonyms, analyzer: analyzer, segments: [segment],
                deletes: [DeleteSet(documents: segment.count)])
        }
        let start = base!.version
        changes = changes.filter { $0.position > start }
        var (current, generation) = replay(changes, onto: base!, store: store)
        if current.version < recovery.version {
            // The log's last entry is its baseline (no changes since): the catalog is at its position.
            current = CatalogSnapshot(
                version: recovery.version, generation: generation, synonyms: current.synonyms,
                analyzer: current.analyzer, segments: current.segments, deletes: current.deletes)
            generation += 1
        }
        // Parsing and building leave the heap much larger than what stays in use (the index is
        // mapped from a file): hand the free pages back to the system.
        releaseFreeMemory()
        let engine = SearchEngine(
            current: current, baseline: fingerprint, nextGeneration: generation, log: log, index: index,
            retention: retention, maximumRetained: 1024, nowMs: SearchEngine.systemNowMs)
        engine.state.withLock {
            $0.badLines = badLines
            $0.baselineStamp = taken.stamp
        }
        // A stamp newly able to vouch for the file is worth a manifest: the next start reads none
        // of the file.
        let stampChanged = taken.stamp != nil && taken.stamp != manifest?.baselineStamp
        if log != nil && (!reused || !changes.isEmpty || stampChanged) { try engine.checkpoint() }
        let opening = CatalogOpening(
            entities: current.count, badLines: badLines, reusedIndex: reused, replayedChanges: changes.count,
            entityTypes: current.numbering.typeNames.sorted(), readCatalogFile: taken.readFile || !reused)
        return (engine, opening)
    }

    /// Writes the current snapshot's segments that are not yet files, then a manifest naming all
    /// of them with their delete bits: a restart maps these instead of parsing the catalog.
    ///
    /// - Throws: ``SearchError/Code/storage`` when a file cannot be written.
    public func checkpoint() throws(SearchError) {
        guard let index else { return }
        try checkpointLock.withLock { _ throws(SearchError) in try checkpoint(into: index) }
    }

    private func checkpoint(into index: IndexDirectory) throws(SearchError) {
        let snapshot = self.snapshot
        let known = state.withLock { $0.persisted }
        var written = [UInt64: String]()
        var entries = [IndexDirectory.Manifest.Entry]()
        for (si, segment) in snapshot.segments.enumerated() {
            var name = segment.fileName ?? known[segment.serial]
            if name == nil {
                name = try index.store(segment).fileName
            }
            written[segment.serial] = name!
            entries.append(.init(file: name!, deleted: snapshot.deletes[si].docs))
        }
        let (baseline, stamp, badLines) = state.withLock { ($0.baseline, $0.baselineStamp, $0.badLines) }
        try index.write(
            IndexDirectory.Manifest(
                baseline: baseline, baselineStamp: stamp, synonyms: snapshot.synonyms,
                version: snapshot.version, segments: entries,
                badLines: badLines))
        // Only the segments of this snapshot can be in the next one's file list.
        state.withLock { $0.persisted = written }
        // The manifest holds every change through its version now: the log keeps them folded.
        try log?.fold(through: snapshot.version)
    }
}
