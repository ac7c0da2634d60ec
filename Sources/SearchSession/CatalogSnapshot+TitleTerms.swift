internal import Synchronization

extension CatalogSnapshot {
    /// The most titles ``titleTerms(of:)`` keeps; past it, it starts again from none.
    static let titleTermsKept = 4_096

    /// A document's title, analyzed: what ``SearchEngine/identifies(_:groups:usable:in:)``
    /// compares a label with.
    ///
    /// Kept per snapshot: the sheet asks it of its top results, the same few documents query
    /// after query, and analyzing a title costs several times the rest of a check (a twentieth of
    /// an uncached sheet Query on the demo catalog).
    func titleTerms(of doc: Int32) -> [String] {
        if let kept = titleTermsCache.withLock({ $0[doc] }) { return kept }
        let (segmentIndex, local) = locate(doc)
        let segment = segments[segmentIndex]
        let terms = analyzer.terms(segment.string(segment.docTitle[local]))
        titleTermsCache.withLock { kept in
            if kept.count >= Self.titleTermsKept { kept.removeAll(keepingCapacity: true) }
            kept[doc] = terms
        }
        return terms
    }
}
