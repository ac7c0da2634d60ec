internal import Synchronization

/// Sessions in a dictionary: for tests and single-process demos; nothing survives a restart.
public final class InMemorySessionStore: SessionStore {
    private let sessions = Mutex<[String: SessionRecord]>([:])

    /// Creates an empty store.
    public init() {}

    public func save(_ record: SessionRecord) async throws(SearchError) {
        sessions.withLock { $0[record.id] = record }
    }

    public func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord {
        guard let record = sessions.withLock({ $0[id] }), record.expiresAtUnixMs > nowUnixMs else {
            throw .sessionNotFound(id)
        }
        return record
    }

    public func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int {
        sessions.withLock { s in
            let before = s.count
            s = s.filter { $0.value.expiresAtUnixMs > nowUnixMs }
            return before - s.count
        }
    }
}
