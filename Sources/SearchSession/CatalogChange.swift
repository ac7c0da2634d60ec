internal import Foundation

/// One acknowledged catalog write, as the log keeps it (in the binary form of
/// CatalogChange+Binary.swift; logs written before it hold JSON, still read).
enum CatalogChange: Sendable, Codable, Equatable {
    /// Entities inserted or replaced whole.
    case upsert([Entity])
    /// Entities removed (absent ones are no-ops).
    case delete([EntityRef])

    /// A change a log wrote as JSON.
    static func decodeJSON(_ bytes: [UInt8], position: UInt64) throws(SearchError) -> CatalogChange {
        do {
            return try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw SearchError(
                code: .storage, message: "catalog log entry \(position) is unreadable", cause: "\(error)")
        }
    }

    /// An entity a log's folded rows kept as JSON (folded through `position`).
    static func decodeJSONEntity(_ bytes: [UInt8], position: UInt64) throws(SearchError) -> Entity {
        do {
            return try JSONDecoder().decode(Entity.self, from: Data(bytes))
        } catch {
            throw SearchError(
                code: .storage, message: "catalog log folded entity at \(position) is unreadable", cause: "\(error)")
        }
    }
}
