internal import Foundation

/// One acknowledged catalog write, as the log keeps it.
enum CatalogChange: Sendable, Codable, Equatable {
    /// Entities inserted or replaced whole.
    case upsert([Entity])
    /// Entities removed (absent ones are no-ops).
    case delete([EntityRef])

    func encoded() throws(SearchError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(self))
        } catch {
            throw SearchError(code: .storage, message: "cannot encode a catalog change", cause: "\(error)")
        }
    }

    /// Applies changes in order to entities in catalog order: a replacement keeps its entity's
    /// place, a new entity goes last, a removed one leaves (and comes back last if upserted again).
    ///
    /// - Returns: The entities after the changes, and how many entities the changes touched.
    static func apply(_ changes: [CatalogChange], to entities: [Entity]) -> (entities: [Entity], applied: Int) {
        guard !changes.isEmpty else { return (entities, 0) }
        var entities = entities
        var positions = [EntityRef: Int](minimumCapacity: entities.count)
        for (i, e) in entities.enumerated() { positions[e.ref] = i }
        var removed = Set<Int>()
        var applied = 0
        for change in changes {
            switch change {
            case .upsert(let batch):
                for e in batch {
                    if let i = positions[e.ref] {
                        entities[i] = e
                    } else {
                        positions[e.ref] = entities.count
                        entities.append(e)
                    }
                }
                applied += batch.count
            case .delete(let refs):
                for r in refs {
                    guard let i = positions.removeValue(forKey: r) else { continue }
                    removed.insert(i)
                    applied += 1
                }
            }
        }
        if removed.isEmpty { return (entities, applied) }
        var kept = [Entity]()
        kept.reserveCapacity(entities.count - removed.count)
        for (i, e) in entities.enumerated() where !removed.contains(i) { kept.append(e) }
        return (kept, applied)
    }

    init(encoded bytes: [UInt8], position: UInt64) throws(SearchError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw SearchError(
                code: .storage, message: "catalog log entry \(position) is unreadable", cause: "\(error)")
        }
    }
}
