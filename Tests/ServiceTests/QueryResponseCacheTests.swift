import DeepLinkRouter
import SearchAPI
import SearchSession
import Synchronization
import Testing
import WireProtocol

@testable import ContinueService

/// The cache of Query answers on its own: stamps, bounds, what it refuses to keep.
@Suite struct QueryResponseCacheTests {
    typealias Stamp = QueryResponseCache.Stamp
    static let today = Stamp(catalogVersion: 3, day: 20_000)

    @Test("an answer comes back for the same bytes under the same stamp, and only then")
    func hitsOnlyOnSameBytesAndStamp() {
        let cache = QueryResponseCache(capacity: 8)
        cache.store([9, 9], for: [1, 2, 3], stamp: Self.today)
        #expect(cache.response(to: [1, 2, 3], stamp: Self.today) == [9, 9])
        #expect(cache.response(to: [1, 2], stamp: Self.today) == nil)
        #expect(cache.response(to: [1, 2, 3], stamp: Stamp(catalogVersion: 4, day: 20_000)) == nil)
        #expect(cache.response(to: [1, 2, 3], stamp: Stamp(catalogVersion: 3, day: 20_001)) == nil)
    }

    @Test("a newer catalog version or day empties the cache; an answer under an older stamp is dropped")
    func newerStampsEmptyIt() {
        let cache = QueryResponseCache(capacity: 8)
        cache.store([1], for: [1], stamp: Self.today)
        cache.store([2], for: [2], stamp: Self.today)
        let tomorrow = Stamp(catalogVersion: 3, day: 20_001)
        cache.store([3], for: [3], stamp: tomorrow)
        #expect(cache.count == 1)
        #expect(cache.response(to: [1], stamp: Self.today) == nil)
        // A slow call that read its stamp before the day moved on must not bring old answers back.
        cache.store([4], for: [4], stamp: Self.today)
        #expect(cache.count == 1)
        let updated = Stamp(catalogVersion: 4, day: 20_000)
        cache.store([5], for: [5], stamp: updated)
        #expect(cache.response(to: [5], stamp: updated) == [5])
        #expect(cache.response(to: [3], stamp: tomorrow) == nil)
    }

    @Test("it holds at most two generations, and entries in use survive the turnover")
    func boundedAndKeepsWhatIsUsed() {
        let cache = QueryResponseCache(capacity: 4)
        for i in 0..<100 {
            cache.store([UInt8(i)], for: [UInt8(i)], stamp: Self.today)
            // Request 0 is asked for all the time, so it keeps moving to the newer generation.
            #expect(cache.response(to: [0], stamp: Self.today) == [0])
            #expect(cache.count <= 8)
        }
        #expect(cache.response(to: [99], stamp: Self.today) == [99])
        #expect(cache.response(to: [50], stamp: Self.today) == nil)
    }

    @Test("large requests and a capacity of 0 are never kept")
    func refusesLargeRequestsAndZeroCapacity() {
        let cache = QueryResponseCache(capacity: 8, maximumRequestBytes: 16)
        cache.store([1], for: [UInt8](repeating: 0, count: 17), stamp: Self.today)
        #expect(cache.count == 0)
        let off = QueryResponseCache(capacity: 0)
        off.store([1], for: [1], stamp: Self.today)
        #expect(off.response(to: [1], stamp: Self.today) == nil)
    }
}

/// The cache inside the service: through the real server, answers always follow the catalog and
/// the day.
@Suite struct CachedQueryServiceTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let ms: Atomic<Int64>
        init(_ ms: Int64) { self.ms = Atomic(ms) }
    }

    static func labels(_ texts: String...) -> SearchAPI.Descriptor {
        SearchAPI.Descriptor(labels: texts.map { SearchAPI.Label(text: $0, confidence: 0.9) }, source: .camera)
    }

    @Test("repeated queries get the same answer, and an upsert or delete shows at once")
    func followsCatalogUpdates() async throws {
        let service = try DemoService.make()
        try await withTestServer(methods: service.methods) { addresses in
            let client = ServiceClient(
                target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!), metadata: DemoService.writerMetadata)
            let request = QueryRequest(descriptor: Self.labels("quokkabeat"), limit: 5)
            #expect(try await client.query(request).results.isEmpty)
            #expect(try await client.query(request).results.isEmpty)
            let entity = SearchAPI.Entity(
                type: "album", id: "quokka", title: "Quokkabeat", category: "Music/Jazz", tags: ["quokkabeat"])
            _ = try await client.upsertEntities(UpsertEntitiesRequest(entities: [entity]))
            let found = try await client.query(request)
            #expect(found.results.map(\.entity) == [EntityRef(type: "album", id: "quokka")])
            #expect(try await client.query(request) == found)
            _ = try await client.deleteEntities(
                DeleteEntitiesRequest(entities: [EntityRef(type: "album", id: "quokka")]))
            #expect(try await client.query(request).results.isEmpty)
            await client.close()
        }
    }

    @Test("a concert drops out of a repeated query once its day has passed")
    func followsTheDay() async throws {
        let catalog = try CatalogLoader.load(path: DemoService.directory + "/catalog.jsonl")
        // An album whose artist has a concert: the concert is surfaced while it is upcoming.
        let byRef = Dictionary(catalog.entities.map { ($0.ref, $0) }, uniquingKeysWith: { a, _ in a })
        let candidates = catalog.entities.compactMap { e -> (SearchSession.Entity, [String])? in
            guard e.type == "album", let artist = e.related.first.flatMap({ byRef[$0] }) else { return nil }
            let dates = artist.related.filter { $0.type == "concert" }.compactMap { ref -> String? in
                guard case .string(let date)? = byRef[ref]?.attributes["date"] else { return nil }
                return String(date.prefix(10))
            }
            return dates.isEmpty ? nil : (e, dates)
        }
        let (album, concertDates) = try #require(candidates.first)
        let clock = Clock(1_764_460_800_000)  // 2025-11-30, before the demo's concerts
        let engine = SearchEngine(catalog: catalog, nowMs: { clock.ms.load(ordering: .relaxed) })
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore())
        let router = try Router(table: RouteTable(contentsOfFile: DemoService.directory + "/routes.json"))
        let service = VisualSearchService(sessions: sessions, router: router)
        try await withTestServer(methods: service.methods) { addresses in
            let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: addresses.tcpPort!))
            let request = QueryRequest(descriptor: Self.labels(album.title), limit: 10)
            let before = try await client.query(request)
            #expect(before.results.contains { $0.entity?.type == "concert" })
            #expect(try await client.query(request) == before)
            // The day after the artist's last concert.
            let last = try #require(concertDates.max())
            let parts = last.split(separator: "-").compactMap { Int64($0) }
            let after = Self.unixMs(year: parts[0], month: parts[1], day: parts[2] + 1)
            clock.ms.store(after, ordering: .relaxed)
            let later = try await client.query(request)
            #expect(!later.results.contains { $0.entity?.type == "concert" })
            #expect(later.results.first?.entity == before.results.first?.entity)
            await client.close()
        }
    }

    /// Unix milliseconds at the start of a UTC day (day may be one past the month's end).
    static func unixMs(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Howard Hinnant's days-from-civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * 86_400_000
    }
}
