internal import Foundation
internal import Synchronization

/// The catalog and its indexes, versioned, answering sheet queries; sessions build on it.
///
/// The engine holds the current ``CatalogSnapshot`` and recently replaced ones: a page token names
/// its snapshot version, and a snapshot stays available for ``retention`` after it is replaced
/// (and at most ``maximumRetained`` of them), so paging stays consistent during updates.
/// Updates are serialised; readers never wait for an index build.
public final class SearchEngine: Sendable {
    private struct State {
        var current: CatalogSnapshot
        var retired: [(snapshot: CatalogSnapshot, at: ContinuousClock.Instant)] = []
    }

    private let state: Mutex<State>
    private let updateLock = Mutex<Int>(0)
    /// How long a replaced snapshot stays available to page tokens.
    public let retention: Duration
    /// The most replaced snapshots kept.
    public let maximumRetained: Int
    let nowMs: @Sendable () -> Int64

    /// Creates an engine over a loaded catalog file (its rejected lines are the caller's to report).
    ///
    /// - Parameters:
    ///   - catalog: Entities and synonyms.
    ///   - retention: How long replaced snapshots stay available to page tokens.
    ///   - maximumRetained: The most replaced snapshots kept.
    ///   - nowMs: The clock, in Unix milliseconds (tests pass their own).
    public init(
        catalog: CatalogFile, retention: Duration = .seconds(900), maximumRetained: Int = 256,
        nowMs: @escaping @Sendable () -> Int64 = SearchEngine.systemNowMs
    ) {
        let (entities, _) = Self.accept(catalog.entities, dimensions: [:])
        state = Mutex(State(current: CatalogSnapshot(version: 1, entities: entities, synonyms: catalog.synonyms)))
        self.retention = retention
        self.maximumRetained = maximumRetained
        self.nowMs = nowMs
    }

    /// Creates an engine over entities and synonym groups.
    public convenience init(entities: [Entity], synonyms: [[String]] = []) {
        self.init(catalog: CatalogFile(entities: entities, synonyms: synonyms, errors: []))
    }

    /// The system clock in Unix milliseconds.
    @Sendable public static func systemNowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The snapshot new queries use.
    public var snapshot: CatalogSnapshot { state.withLock { $0.current } }

    /// A snapshot by version, if it is current or still retained.
    public func snapshot(version: UInt64) -> CatalogSnapshot? {
        state.withLock { s in
            if s.current.version == version { return s.current }
            return s.retired.first { $0.snapshot.version == version }?.snapshot
        }
    }

    /// Inserts or replaces entities (whole); visible to new queries when this returns.
    ///
    /// - Parameter batch: The entities; one with the type and id of an existing entity replaces it.
    /// - Returns: How many were applied, the new version, and the rejected ones with reasons.
    @discardableResult
    public func upsert(_ batch: [Entity]) -> CatalogUpdate {
        update { old in
            var entities = old.entities
            var positions = [EntityRef: Int]()
            for (i, e) in entities.enumerated() { positions[e.ref] = i }
            var dimensions = [String: Int]()
            for (model, index) in old.vectors { dimensions[model] = index.dimension }
            let (accepted, errors) = Self.accept(batch, dimensions: dimensions)
            for e in accepted {
                if let i = positions[e.ref] {
                    entities[i] = e
                } else {
                    positions[e.ref] = entities.count
                    entities.append(e)
                }
            }
            return (entities, old.synonyms, accepted.count, errors)
        }
    }

    /// Removes entities; unknown ones are reported, not fatal.
    @discardableResult
    public func delete(_ refs: [EntityRef]) -> CatalogUpdate {
        update { old in
            var remove = Set<EntityRef>()
            var errors = [CatalogUpdate.EntityError]()
            for (i, r) in refs.enumerated() {
                if old.entity(r) == nil || remove.contains(r) {
                    errors.append(.init(index: i, entity: r, message: "no entity \(r) in the catalog"))
                } else {
                    remove.insert(r)
                }
            }
            return (old.entities.filter { !remove.contains($0.ref) }, old.synonyms, remove.count, errors)
        }
    }

    /// Replaces the whole catalog, e.g. after the catalog file was reloaded.
    @discardableResult
    public func replace(with file: CatalogFile) -> CatalogUpdate {
        update { old in
            let (accepted, errors) = Self.accept(file.entities, dimensions: [:])
            return (accepted, file.synonyms, accepted.count, errors)
        }
    }

    private func update(
        _ body: (CatalogSnapshot) -> ([Entity], [[String]], Int, [CatalogUpdate.EntityError])
    ) -> CatalogUpdate {
        updateLock.withLock { _ in
            let old = snapshot
            let (entities, synonyms, applied, errors) = body(old)
            let next = CatalogSnapshot(version: old.version + 1, entities: entities, synonyms: synonyms, previous: old)
            let now = ContinuousClock.now
            state.withLock { s in
                s.retired.append((s.current, now))
                s.current = next
                s.retired.removeAll { now - $0.at > retention }
                if s.retired.count > maximumRetained { s.retired.removeFirst(s.retired.count - maximumRetained) }
            }
            return CatalogUpdate(applied: applied, catalogVersion: next.version, errors: errors)
        }
    }

    /// Validates a batch: each entity on its own, one entity per reference, one dimension per model.
    static func accept(_ batch: [Entity], dimensions: [String: Int]) -> ([Entity], [CatalogUpdate.EntityError]) {
        var dimensions = dimensions
        var accepted = [Entity]()
        var index = [EntityRef: Int]()
        var errors = [CatalogUpdate.EntityError]()
        outer: for (i, e) in batch.enumerated() {
            do throws(SearchError) {
                try e.validate()
            } catch {
                errors.append(.init(index: i, entity: e.ref, message: error.message))
                continue
            }
            for p in e.prints {
                if let d = dimensions[p.model], d != p.values.count {
                    errors.append(
                        .init(
                            index: i, entity: e.ref,
                            message: "print of model \(p.model) has \(p.values.count) values; the catalog's have \(d)"))
                    continue outer
                }
            }
            for p in e.prints where dimensions[p.model] == nil { dimensions[p.model] = p.values.count }
            if let j = index[e.ref] {
                accepted[j] = e
            } else {
                index[e.ref] = accepted.count
                accepted.append(e)
            }
        }
        return (accepted, errors)
    }
}
