import Synchronization

/// Recent Query answers, serialized, by the exact request bytes.
///
/// A camera pointed at the same thing sends the same descriptor many times a second, and every
/// one of those calls would decode, search, link and encode the same answer again. An answer
/// depends only on the request, the catalog snapshot and the day (upcoming events are those from
/// today on), so the cache is stamped with the snapshot's version and the day, and empties itself
/// when either moves on: an answer is never older than the catalog it was asked of.
///
/// Bounded by two generations of `capacity` entries each: lookups that hit the older generation
/// move the entry to the newer one; when the newer one is full the older one is dropped, so recent
/// requests stay and the rest age out without per-entry bookkeeping.
final class QueryResponseCache: Sendable {
    /// What an answer was computed against; later catalog versions, then later days, are newer.
    struct Stamp: Comparable {
        /// The catalog snapshot's version.
        var catalogVersion: UInt64
        /// The UTC day number (Unix days).
        var day: Int64

        static func < (a: Stamp, b: Stamp) -> Bool { (a.catalogVersion, a.day) < (b.catalogVersion, b.day) }
    }

    private struct State {
        var stamp = Stamp(catalogVersion: 0, day: 0)
        var current: [[UInt8]: [UInt8]] = [:]
        var previous: [[UInt8]: [UInt8]] = [:]
    }

    /// Entries per generation; 0 turns the cache off.
    let capacity: Int
    /// Larger requests (pixel buffers, feature prints) are not cached: they rarely repeat byte
    /// for byte, and the key alone would cost more memory than the answer.
    let maximumRequestBytes: Int
    private let state = Mutex(State())

    init(capacity: Int, maximumRequestBytes: Int = 4096) {
        self.capacity = capacity
        self.maximumRequestBytes = maximumRequestBytes
    }

    /// The cached answer to `request` under `stamp`, if any.
    func response(to request: [UInt8], stamp: Stamp) -> [UInt8]? {
        guard capacity > 0, request.count <= maximumRequestBytes else { return nil }
        return state.withLock { state in
            guard state.stamp == stamp else { return nil }
            if let hit = state.current[request] { return hit }
            guard let hit = state.previous.removeValue(forKey: request) else { return nil }
            Self.insert(hit, for: request, into: &state, capacity: capacity)
            return hit
        }
    }

    /// Keeps `response` as the answer to `request` under `stamp`. A newer stamp empties the cache;
    /// an answer under an older stamp than the cache's is dropped.
    func store(_ response: [UInt8], for request: [UInt8], stamp: Stamp) {
        guard capacity > 0, request.count <= maximumRequestBytes else { return }
        state.withLock { state in
            if state.stamp != stamp {
                guard stamp > state.stamp else { return }
                state = State(stamp: stamp)
            }
            Self.insert(response, for: request, into: &state, capacity: capacity)
        }
    }

    /// How many answers are cached (both generations), for tests.
    var count: Int { state.withLock { $0.current.count + $0.previous.count } }

    private static func insert(_ response: [UInt8], for request: [UInt8], into state: inout State, capacity: Int) {
        if state.current.count >= capacity {
            state.previous = state.current
            state.current = [:]
        }
        state.current[request] = response
    }
}
