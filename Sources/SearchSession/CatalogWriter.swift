/// Takes catalog writes for a service: the engine itself, whose log is its own, or a
/// ``CatalogReplica``, whose log is shared by every instance.
public protocol CatalogWriter: Sendable {
    /// Inserts or replaces entities (whole), all or nothing; visible to this instance's next call
    /// when it returns.
    func upsert(_ batch: [Entity]) throws(SearchError) -> CatalogUpdate
    /// Removes entities, as one batch; references not in the catalog are reported and skipped.
    func delete(_ refs: [EntityRef]) throws(SearchError) -> CatalogUpdate
    /// Whether this instance has every write acknowledged so far (an engine with a log of its own
    /// always has).
    var isCaughtUp: Bool { get }
}

extension SearchEngine: CatalogWriter {
    public var isCaughtUp: Bool { true }
}
