internal import Synchronization

/// Computes an entity's canonical deep link, e.g. from the app's route table, and says which
/// entities a result may show at all: one that cannot be opened is left out.
///
/// Results of the sheet and of session searches carry this link instead of the catalog's own
/// (which stays the fallback when the linker has none for an entity). The link of an entity is a
/// function of the linker and the entity only, so each snapshot computes it once per entity, the
/// first time a result needs it, and keeps it: a new snapshot (upsert, delete, catalog reload)
/// starts with an empty cache, and so does a new linker (a reloaded route table) on a snapshot.
public final class EntityLinker: Sendable {
    let link: @Sendable (EntityRef) -> String?
    /// Whether the linker opens every entity of a type; `nil` when every entity can be opened.
    let opensType: (@Sendable (String) -> Bool)?
    /// Whether an entity's own catalog link opens it (asked only for types the linker does not open).
    let opensLink: @Sendable (String) -> Bool
    /// The documents of each segment that cannot be opened, by segment serial: a segment never
    /// changes, so this is computed once per segment and linker, not once per snapshot.
    private let unopenable = Mutex<[UInt64: [Int]]>([:])

    /// Creates a linker.
    ///
    /// - Parameters:
    ///   - link: The canonical link of an entity, or `nil` to keep the catalog's own; it must be
    ///     pure (the same entity always gets the same link), because its answers are cached.
    ///   - opensType: Whether every entity of a type can be opened (its type has a route); `nil`
    ///     when every result can be opened. Must be pure, like `link`.
    ///   - opensLink: For an entity of a type that is not opened, whether its own catalog link
    ///     opens it; by default none does.
    public init(
        _ link: @escaping @Sendable (EntityRef) -> String?, opensType: (@Sendable (String) -> Bool)? = nil,
        opensLink: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.link = link
        self.opensType = opensType
        self.opensLink = opensLink
    }

    /// The local numbers of the documents of `segment` that cannot be opened, ascending.
    func unopenableDocuments(of segment: Segment) -> [Int] {
        guard let opensType else { return [] }
        if let known = unopenable.withLock({ $0[segment.serial] }) { return known }
        // Only the documents of types without a route need a look at their own link.
        let closedTypes = segment.typeNames.map { !opensType(segment.name($0)) }
        var found = [Int]()
        if closedTypes.contains(true) {
            for doc in 0..<segment.count where closedTypes[Int(segment.docType[doc])] {
                if !opensLink(segment.string(segment.docLink[doc])) { found.append(doc) }
            }
        }
        unopenable.withLock { known in
            // Merged-away segments leave entries behind; a bound keeps them from piling up.
            if known.count >= 4096 { known = [:] }
            known[segment.serial] = found
        }
        return found
    }
}
