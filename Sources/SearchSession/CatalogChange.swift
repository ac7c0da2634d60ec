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

    init(encoded bytes: [UInt8], position: UInt64) throws(SearchError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw SearchError(
                code: .storage, message: "catalog log entry \(position) is unreadable", cause: "\(error)")
        }
    }
}
