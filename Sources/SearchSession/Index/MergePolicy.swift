/// When segments are merged: size-tiered, as log-structured indexes do.
///
/// Segments fall in tiers by size (a tier is `mergeFactor` times the one below). When
/// `mergeFactor` neighbouring segments share a tier they are merged into one of the next tier
/// (the lowest such tier first), so each document is rewritten about log_mergeFactor(N) times in
/// all, and a write never waits for it. A segment whose documents are all deleted is dropped
/// (nothing is rebuilt), and one with many deleted documents is rewritten on its own; past
/// `maximumSegments`, the `mergeFactor` neighbours most even in size are merged, whatever their
/// tiers.
///
/// Dropping dead segments first matters under writes that replace the same entities again and
/// again: each replaced batch leaves a segment of deleted documents that the size tiers would
/// keep (mapped, and read by every search) until enough segments of its tier came along.
///
/// Why neighbours anywhere, and the most even past the cap, not the newest: under a steady
/// stream of small writes into listings-1m, "the newest `mergeFactor` whatever their sizes" took
/// in a 50,000-document segment (3.2 s of merging, while 130 more segments piled up for every
/// search to visit), then merged each merge's output again with the next seven batches, a few
/// hundred milliseconds more each time: in a model of that index, 2,000 batches of 100 cost 142
/// rewrites a written document (2.8 from a fresh one, whose tiers leave the cap room).
struct MergePolicy: Sendable {
    var mergeFactor = 8
    /// A segment whose deleted share passes this (and has at least `minimumDeletedToRewrite`
    /// deleted documents) is rewritten without them.
    var maximumDeletedShare = 0.3
    var minimumDeletedToRewrite = 1_000
    /// A segment with more than this share deleted is rewritten whatever its size: small
    /// segments never reach `minimumDeletedToRewrite`, and rewriting one costs its live half.
    var mostlyDeletedShare = 0.5
    var maximumSegments = 32

    /// What the policy reads of a segment: its documents, and how many of them are deleted.
    struct Sizes: Equatable {
        var documents: Int
        var deleted: Int
    }

    /// A contiguous run of segment positions to merge into one, or `nil` when none is due.
    func segmentsToMerge(in snapshot: CatalogSnapshot) -> Range<Int>? {
        segmentsToMerge(
            in: zip(snapshot.segments, snapshot.deletes).map { Sizes(documents: $0.count, deleted: $1.count) })
    }

    /// A contiguous run of the segments (oldest first) to merge into one, or `nil` when none is due.
    func segmentsToMerge(in segments: [Sizes]) -> Range<Int>? {
        // The last segment stays even when empty: a snapshot always has one.
        if segments.count > 1,
            let dead = segments.indices.first(where: {
                segments[$0].documents > 0 && segments[$0].deleted == segments[$0].documents
            })
        {
            return dead..<(dead + 1)
        }
        if let run = sameTierRun(in: segments) { return run }
        if segments.count > maximumSegments, let run = evenestRun(in: segments) { return run }
        for (position, segment) in segments.enumerated() {
            // A segment with nothing live is the rule above's, or the catalog's last one.
            guard segment.deleted < segment.documents else { continue }
            let share = Double(segment.deleted) / Double(segment.documents)
            if (segment.deleted >= minimumDeletedToRewrite && share > maximumDeletedShare) || share > mostlyDeletedShare
            {
                return position..<(position + 1)
            }
        }
        return nil
    }

    /// The newest run of `mergeFactor` neighbours in one tier, of the lowest tier that has one;
    /// past `maximumSegments`, up to `mergeFactor` times that many of them.
    ///
    /// Why more at once past the cap: while a long merge runs, writes keep adding segments (119
    /// after a 1-second merge under upserts of 100 into listings-1m, every search visiting each),
    /// and merging them eight at a time drained three segments a merge; a wider merge skips a
    /// tier and pays a merge's fixed costs (its file, its install) once.
    private func sameTierRun(in segments: [Sizes]) -> Range<Int>? {
        guard mergeFactor > 1, segments.count >= mergeFactor else { return nil }
        let widest = segments.count > maximumSegments ? mergeFactor * mergeFactor : mergeFactor
        var best: (tier: Int, run: Range<Int>)?
        var runStart = 0
        for position in segments.indices {
            let current = tier(of: segments[position].documents)
            if position > 0 && current != tier(of: segments[position - 1].documents) { runStart = position }
            let length = min(position - runStart + 1, widest)
            guard length >= mergeFactor else { continue }
            // Later positions win ties: the newest run of a tier, as long as it grows.
            if best == nil || current < best!.tier || (current == best!.tier && length >= best!.run.count) {
                best = (current, (position + 1 - length)..<(position + 1))
            }
        }
        return best?.run
    }

    /// The run of `mergeFactor` neighbours most even in size: the smallest share of its largest
    /// segment in the run's documents (then the fewest documents, then the newest).
    ///
    /// An even merge is what keeps a document's rewrites logarithmic: it joins a segment about
    /// `mergeFactor` times its own. The fewest documents alone picked, under a stream of small
    /// writes, the last merge's output and the seven batches after it, again and again (22
    /// rewrites a document for 2,000 batches onto a catalog whose older segments fill the cap;
    /// 3.3 this way, the older segments merged once among themselves).
    private func evenestRun(in segments: [Sizes]) -> Range<Int>? {
        guard mergeFactor > 1, segments.count >= mergeFactor else { return nil }
        var best: (largest: Int, documents: Int, run: Range<Int>)?
        for start in 0...(segments.count - mergeFactor) {
            let run = start..<(start + mergeFactor)
            let documents = segments[run].reduce(0) { $0 + $1.documents }
            let largest = segments[run].map(\.documents).max()!
            if let current = best {
                // largest / documents against the best's, without dividing (an empty run as one document).
                let share = largest * max(current.documents, 1)
                let bestShare = current.largest * max(documents, 1)
                if share > bestShare || (share == bestShare && documents > current.documents) { continue }
            }
            best = (largest, documents, run)
        }
        return best?.run
    }

    /// The tier of a segment of `count` documents: 0 below `mergeFactor`, 1 below its square, …
    func tier(of count: Int) -> Int {
        var tier = 0
        var bound = mergeFactor
        while count >= bound && tier < 20 {
            tier += 1
            bound *= mergeFactor
        }
        return tier
    }
}

/// One merge: the live documents of a run of segments rewritten as one segment, and how to put it
/// in the place of the run in a later snapshot.
struct SegmentMerge {
    let sources: [Segment]
    /// The delete bits the merge saw; documents deleted after it are carried over on install.
    let sourceDeletes: [DeleteSet]
    /// The merged segment, or `nil` when the run had no live document: it is dropped.
    let merged: Segment?
    /// Per source segment: each document's number in the merged segment, or -1 if it was deleted.
    let mapping: [[Int32]]

    /// Builds the merged segment from `run` of `snapshot` (the slow part, without any lock).
    ///
    /// - Parameter store: Puts the merged segment where it is to live (a mapped file), if given.
    init(_ run: Range<Int>, of snapshot: CatalogSnapshot, store: ((Segment) -> Segment)? = nil) {
        sources = Array(snapshot.segments[run])
        sourceDeletes = Array(snapshot.deletes[run])
        var builder = SegmentBuilder()
        var mapping = [[Int32]]()
        for (position, segment) in sources.enumerated() {
            var local = [Int32](repeating: -1, count: segment.count)
            var numbers = SegmentBuilder.SourceNumbers(segment)
            for doc in 0..<segment.count where !sourceDeletes[position].contains(doc) {
                local[doc] = Int32(builder.count)
                builder.add(doc, of: segment, numbers: &numbers)
            }
            mapping.append(local)
        }
        self.mapping = mapping
        guard builder.count > 0 else {
            merged = nil
            return
        }
        // The builder's own output always has a consistent shape.
        let segment = try! Segment(
            builder.finish(analyzer: snapshot.analyzer), localFeatures: builder.finishLocalFeatures())
        merged = store?(segment) ?? segment
    }

    /// The current snapshot with the run replaced by the merged segment, or `nil` when the run is
    /// no longer there (a reload replaced the catalog meanwhile).
    func install(into current: CatalogSnapshot, generation: UInt64) -> CatalogSnapshot? {
        guard let start = current.segments.firstIndex(where: { $0 === sources[0] }),
            start + sources.count <= current.segments.count,
            zip(current.segments[start...], sources).allSatisfy({ $0 === $1 })
        else { return nil }
        var segments = current.segments
        var allDeletes = current.deletes
        let run = start..<(start + sources.count)
        if let merged {
            var deletes = DeleteSet(documents: merged.count)
            for position in sources.indices {
                for doc in current.deletes[start + position].docs where !sourceDeletes[position].contains(doc) {
                    deletes.insert(Int(mapping[position][doc]))
                }
            }
            segments.replaceSubrange(run, with: [merged])
            allDeletes.replaceSubrange(run, with: [deletes])
        } else {
            // No document of the run was live when the merge began, and a deleted one stays
            // deleted: nothing to carry over.
            guard segments.count > run.count else { return nil }
            segments.removeSubrange(run)
            allDeletes.removeSubrange(run)
        }
        let next = CatalogSnapshot(
            version: current.version, generation: generation, synonyms: current.synonyms, analyzer: current.analyzer,
            segments: segments, deletes: allDeletes)
        next.inheritDerived(merging: run, into: merged, of: current)
        return next
    }
}
