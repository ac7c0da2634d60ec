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

    /// One entity as the log's folded rows keep it.
    static func encode(_ entity: Entity) throws(SearchError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(entity))
        } catch {
            throw SearchError(code: .storage, message: "cannot encode an entity for the log", cause: "\(error)")
        }
    }

    /// One entity of the log's folded rows (folded through `position`).
    static func decodeEntity(_ bytes: [UInt8], position: UInt64) throws(SearchError) -> Entity {
        do {
            return try JSONDecoder().decode(Entity.self, from: Data(bytes))
        } catch {
            throw SearchError(
                code: .storage, message: "catalog log folded entity at \(position) is unreadable", cause: "\(error)")
        }
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
