internal import Synchronization

extension CatalogSnapshot {
    /// The most catalog pictures whose nearest other picture is looked up for
    /// ``medianPrintGap``: a median of this many is stable to a few per cent, and the scans cost
    /// about as much as one page of a large catalog's text search, once per snapshot.
    static let printGapSample = 128

    /// The median distance from a catalog picture's built-in print to its nearest other one:
    /// the catalog's own scale for ``ImageMatchRule``'s strict distance (pictures of one family lie
    /// closer together, and so do strangers to them). Computed on first use and kept for the
    /// snapshot's life, over an evenly spaced sample of at most ``printGapSample`` live pictures;
    /// `nil` with fewer than two.
    var medianPrintGap: Float? {
        if let known = printGap.withLock({ $0 }) { return known }
        let gap = Self.medianGap(in: self)
        printGap.withLock { $0 = .some(gap) }
        return gap
    }

    private static func medianGap(in snapshot: CatalogSnapshot) -> Float? {
        var pictures = [(segment: Int, row: Int)]()
        for (si, segment) in snapshot.segments.enumerated() {
            guard let rows = segment.vectors[FeaturePrinter.model] else { continue }
            for row in 0..<rows.docs.count where !snapshot.deletes[si].contains(Int(rows.docs[row])) {
                pictures.append((si, row))
            }
        }
        guard pictures.count >= 2 else { return nil }
        let step = max(1, pictures.count / printGapSample)
        var gaps = [Float]()
        for index in stride(from: 0, to: pictures.count, by: step).prefix(printGapSample) {
            let (si, row) = pictures[index]
            let rows = snapshot.segments[si].vectors[FeaturePrinter.model]!
            let values = Array(rows.rows[(row * rows.dimension)..<((row + 1) * rows.dimension)])
            let own = snapshot.bases[si] + Int32(bitPattern: rows.docs[row])
            let nearest = Ranker.nearest(
                FeaturePrint(model: FeaturePrinter.model, values: values), in: snapshot, maxDistance: 2, limit: 2)
            if let other = nearest.first(where: { $0.doc != own }) { gaps.append(other.distance) }
        }
        guard !gaps.isEmpty else { return nil }
        return gaps.sorted()[gaps.count / 2]
    }
}
