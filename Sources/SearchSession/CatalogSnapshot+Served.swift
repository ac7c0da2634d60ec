internal import Synchronization

extension CatalogSnapshot {
    /// The snapshot as results of `linker` see it: entities that cannot be opened (see
    /// ``EntityLinker``) are deleted from it, so the sheet, the pages, the counts and the facets
    /// all leave them out alike. Same version and generation, so page tokens name either.
    ///
    /// Without such entities (every type has a route: the usual case) it is this snapshot itself;
    /// otherwise the view is made once per snapshot and linker and kept with the snapshot.
    func served(by linker: EntityLinker?) -> CatalogSnapshot {
        guard let linker, linker.opensType != nil else { return self }
        if let kept = servedView.withLock({ $0 }), kept.linker === linker { return kept.view ?? self }
        var hidden = deletes
        var hides = false
        for (si, segment) in segments.enumerated() {
            for doc in linker.unopenableDocuments(of: segment) where hidden[si].insert(doc) { hides = true }
        }
        let view =
            hides
            ? CatalogSnapshot(
                version: version, generation: generation, synonyms: synonyms, analyzer: analyzer, segments: segments,
                deletes: hidden)
            : nil
        servedView.withLock { $0 = (linker, view) }
        return view ?? self
    }
}
