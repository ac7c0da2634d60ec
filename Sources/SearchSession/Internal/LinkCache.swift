internal import Synchronization

/// The deep links of one snapshot's entities, computed on first use for one ``EntityLinker``.
///
/// A sheet query would otherwise run the linker (a route-table lookup and URL building) for
/// every result of every call, although the answer only changes with the snapshot or the linker.
/// The cache belongs to its snapshot, so a catalog change drops it with the snapshot; a different
/// linker (a reloaded route table) replaces its contents.
final class LinkCache: Sendable {
    private struct State {
        /// The linker the links were computed with; compared by identity.
        var linker: EntityLinker?
        /// Per document: its link (the linker's, or the catalog's own), `nil` until needed.
        var links: [String?] = []
    }

    private let state = Mutex(State())

    /// The links of `docs`, in order, computing the missing ones with `linker`.
    ///
    /// - Parameters:
    ///   - docs: Document numbers of the snapshot whose entities are `entities`.
    ///   - entities: The snapshot's entities.
    ///   - linker: The linker; when it differs from the one the cache holds links of, the cache starts over.
    /// - Returns: One link per document: the linker's, or the entity's catalog link when it has none.
    func links(_ docs: [Int32], entities: [Entity], linker: EntityLinker) -> [String] {
        state.withLock { s in
            if s.linker !== linker || s.links.count != entities.count {
                s.linker = linker
                s.links = [String?](repeating: nil, count: entities.count)
            }
            return docs.map { doc in
                if let link = s.links[Int(doc)] { return link }
                let e = entities[Int(doc)]
                let link = linker.link(e.ref) ?? e.link
                s.links[Int(doc)] = link
                return link
            }
        }
    }
}
