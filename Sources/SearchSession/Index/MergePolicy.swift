/// When segments are merged: size-tiered, as log-structured indexes do.
///
/// Segments fall in tiers by size (a tier is `mergeFactor` times the one below). When the newest
/// `mergeFactor` segments share a tier they are merged into one of the next tier, so each document
/// is rewritten about log_mergeFactor(N) times in all, and a write never waits for it. A segment
/// whose documents are all deleted is dropped (nothing is rebuilt), and one with many deleted
/// documents is rewritten on its own; past `maximumSegments`, the newest `mergeFactor` are merged
/// whatever their sizes.
///
/// Dropping dead segments first matters under writes that replace the same entities again and
/// again: each replaced batch leaves a segment of deleted documents that the size tiers would
/// keep (mapped, and read by every search) until enough segments of its tier came along.
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

    /// A contiguous run of segment positions to merge into one, or `nil` when none is due.
    func segmentsToMerge(in snapshot: CatalogSnapshot) -> Range<Int>? {
        let segmentCount = snapshot.segments.count
        // The last segment stays even when empty: a snapshot always has one.
        if segmentCount > 1,
            let dead = snapshot.segments.indices.first(where: {
                snapshot.segments[$0].count > 0 && snapshot.deletes[$0].count == snapshot.segments[$0].count
            })
        {
            return dead..<(dead + 1)
        }
        if segmentCount >= mergeFactor {
            let tiers = snapshot.segments.suffix(mergeFactor).map { tier(of: $0.count) }
            if Set(tiers).count == 1 || segmentCount > maximumSegments {
                return (segmentCount - mergeFactor)..<segmentCount
            }
        }
        for (position, segment) in snapshot.segments.enumerated() {
            let deleted = snapshot.deletes[position].count
            // A segment with nothing live is the rule above's, or the catalog's last one.
            guard deleted < segment.count else { continue }
            let share = Double(deleted) / Double(segment.count)
            if (deleted >= minimumDeletedToRewrite && share > maximumDeletedShare) || share > mostlyDeletedShare {
                return position..<(position + 1)
            }
        }
        return nil
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
            for doc in 0..<segment.count where !sourceDeletes[position].contains(doc) {
                local[doc] = Int32(builder.count)
                var entity = segment.entity(doc)
                entity.localFeatures = segment.localFeatures.localFeatures(of: doc)
                builder.add(entity)
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
