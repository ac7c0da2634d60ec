internal import Synchronization

/// Sessions in a dictionary: for tests and single-process demos; nothing survives a restart.
///
/// Bounded: past ``capacity`` sessions, the oldest saved is dropped first, so a Capture load
/// cannot grow the process without limit between purges.
public final class InMemorySessionStore: SessionStore {
    private struct State {
        var sessions: [String: SessionRecord] = [:]
        /// Ids in the order they were saved; `order[head...]` are live or already removed.
        var order: [String] = []
        var head = 0
        var created = 0
        var purged = 0
        var evicted = 0

        /// Drops consumed ids from the front once they are half the array, so it stays
        /// proportional to the live sessions.
        mutating func compact() {
            if head > 1024 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    private let state = Mutex(State())
    /// The most sessions kept.
    public let capacity: Int

    /// Creates an empty store.
    ///
    /// - Parameter capacity: The most sessions kept; the oldest go first (default 100,000).
    public init(capacity: Int = 100_000) {
        precondition(capacity > 0, "a session store needs room for one session")
        self.capacity = capacity
    }

    /// How many sessions are kept now.
    public var count: Int { state.withLock { $0.sessions.count } }

    public func save(_ record: SessionRecord) async throws(SearchError) {
        state.withLock { state in
            if state.sessions.updateValue(record, forKey: record.id) == nil {
                state.order.append(record.id)
                state.created += 1
            }
            while state.sessions.count > capacity, state.head < state.order.count {
                if state.sessions.removeValue(forKey: state.order[state.head]) != nil { state.evicted += 1 }
                state.head += 1
            }
            state.compact()
        }
    }

    public func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord {
        guard let record = state.withLock({ $0.sessions[id] }), record.expiresAtUnixMs > nowUnixMs else {
            throw .sessionNotFound(id)
        }
        return record
    }

    public func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int {
        state.withLock { state in
            let before = state.sessions.count
            state.sessions = state.sessions.filter { $0.value.expiresAtUnixMs > nowUnixMs }
            // Ids of purged sessions stay in `order` until they reach the front: rebuild it
            // instead, so the queue never holds more than the live sessions.
            state.order = Array(state.order[state.head...].filter { state.sessions[$0] != nil })
            state.head = 0
            state.purged += before - state.sessions.count
            return before - state.sessions.count
        }
    }

    public var statistics: SessionStoreStatistics {
        state.withLock { state in
            SessionStoreStatistics(
                kind: "memory", stored: state.sessions.count, created: state.created, purged: state.purged,
                evicted: state.evicted)
        }
    }
}
