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
        /// Links by document: the linker's, or the catalog's own.
        var links: [Int32: String] = [:]
    }

    /// The most links kept: a catalog of millions would otherwise keep a string for every entity
    /// ever shown. Past it the cache starts over (the links are recomputed as they are needed).
    static let capacity = 100_000

    private let state = Mutex(State())

    /// The links of `docs`, in order, computing the missing ones with `linker`.
    ///
    /// - Parameters:
    ///   - docs: Document numbers of `snapshot`.
    ///   - snapshot: The snapshot the cache belongs to.
    ///   - linker: The linker; when it differs from the one the cache holds links of, the cache starts over.
    /// - Returns: One link per document: the linker's, or the entity's catalog link when it has none.
    func links(_ docs: [Int32], in snapshot: CatalogSnapshot, linker: EntityLinker) -> [String] {
        state.withLock { state in
            if state.linker !== linker || state.links.count >= Self.capacity {
                state.linker = linker
                state.links = [:]
            }
            return docs.map { doc in
                if let link = state.links[doc] { return link }
                let (si, local) = snapshot.locate(doc)
                let segment = snapshot.segments[si]
                let link = linker.link(segment.ref(of: local)) ?? segment.string(segment.docLink[local])
                state.links[doc] = link
                return link
            }
        }
    }

    /// How many links are kept.
    var count: Int { state.withLock { $0.links.count } }

    /// Forgets every link: a replaced snapshot keeps none while it waits for page tokens that
    /// may never come (under steady writes, hundreds of them would each hold their results' links).
    func clear() {
        state.withLock { $0 = State() }
    }
}
