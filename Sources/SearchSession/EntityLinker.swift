/// Computes an entity's canonical deep link, e.g. from the app's route table.
///
/// Results of the sheet and of session searches carry this link instead of the catalog's own
/// (which stays the fallback when the linker has none for an entity). The link of an entity is a
/// function of the linker and the entity only, so each snapshot computes it once per entity, the
/// first time a result needs it, and keeps it: a new snapshot (upsert, delete, catalog reload)
/// starts with an empty cache, and so does a new linker (a reloaded route table) on a snapshot.
public final class EntityLinker: Sendable {
    let link: @Sendable (EntityRef) -> String?

    /// Creates a linker.
    ///
    /// - Parameter link: The canonical link of an entity, or `nil` to keep the catalog's own; it
    ///   must be pure (the same entity always gets the same link), because its answers are cached.
    public init(_ link: @escaping @Sendable (EntityRef) -> String?) {
        self.link = link
    }
}
