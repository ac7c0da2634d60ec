/// The first hits by title, reading as few titles as it can.
///
/// A title sort orders by the folded title's UTF-8 bytes (a prefix first), ties in hit order.
/// Within one segment that is the order of its documents' title places (``Segment/docTitleRank``),
/// so each segment's first `limit` hits are chosen by comparing numbers; only those finalists,
/// and hits whose title is shown localized in the session's locale (their key is not the stored
/// one), have their keys read, and only where two of them come from different segments. A title
/// sort over 80,000 hits reads a few dozen titles, not 80,000 (each a `pread` from a mapped
/// segment, see ``ByteRegion/copy(from:count:to:)``).
enum TitleOrder {
    static func top(
        _ list: [Candidate], _ limit: Int, in snapshot: CatalogSnapshot, locale: String, descending: Bool
    ) -> [Candidate] {
        guard limit > 0, !list.isEmpty else { return [] }
        let hits = list.map { candidate -> Hit in
            let (segment, local) = snapshot.locate(candidate.doc)
            let localized = snapshot.segments[segment].showsLocalized(local, in: locale)
            return Hit(
                segment: segment, local: local,
                rank: localized ? nil : snapshot.segments[segment].docTitleRank[local])
        }
        // Each segment's first `limit` by place (positions ascend, so ties keep hit order), and
        // every localized hit.
        var finalists = [Int]()
        var bySegment = [[Int]](repeating: [], count: snapshot.segments.count)
        for (position, hit) in hits.enumerated() {
            if hit.rank == nil { finalists.append(position) } else { bySegment[hit.segment].append(position) }
        }
        for positions in bySegment where !positions.isEmpty {
            finalists += SearchEngine.top(positions, limit) { a, b in
                let (leftRank, rightRank) = (hits[positions[a]].rank!, hits[positions[b]].rank!)
                if leftRank != rightRank { return descending ? leftRank > rightRank : leftRank < rightRank }
                return positions[a] < positions[b]
            }
        }
        let keys = FinalistKeys(hits: hits, snapshot: snapshot, locale: locale)
        finalists.sort { a, b in
            let order = keys.compare(a, b)
            if order != 0 { return descending ? order > 0 : order < 0 }
            return a < b
        }
        return finalists.prefix(limit).map { list[$0] }
    }

    /// Where a hit's title key is: its segment and document, and its place there unless its title
    /// is shown localized.
    struct Hit {
        var segment: Int
        var local: Int
        var rank: UInt32?
    }

    /// Finalists' keys, read when a comparison needs them and kept for the next.
    final class FinalistKeys {
        private let hits: [Hit]
        private let snapshot: CatalogSnapshot
        private let locale: String
        private var read: [Int: [UInt8]] = [:]

        init(hits: [Hit], snapshot: CatalogSnapshot, locale: String) {
            self.hits = hits
            self.snapshot = snapshot
            self.locale = locale
        }

        /// Negative, zero or positive as hit `a`'s title key is below, equal to or above hit `b`'s.
        func compare(_ a: Int, _ b: Int) -> Int {
            let (left, right) = (hits[a], hits[b])
            if let leftRank = left.rank, let rightRank = right.rank, left.segment == right.segment {
                return leftRank < rightRank ? -1 : (leftRank > rightRank ? 1 : 0)
            }
            let (first, second) = (key(a), key(b))
            for (firstByte, secondByte) in zip(first, second) where firstByte != secondByte {
                return firstByte < secondByte ? -1 : 1
            }
            return first.count - second.count
        }

        private func key(_ position: Int) -> [UInt8] {
            if let known = read[position] { return known }
            let hit = hits[position]
            let segment = snapshot.segments[hit.segment]
            let key =
                hit.rank == nil
                ? Array(Analyzer.tokens(segment.display(hit.local, locale: locale).title).joined(separator: " ").utf8)
                : segment.withBytes(of: segment.docTitleSortKey[hit.local]) { Array($0) }
            read[position] = key
            return key
        }
    }
}
