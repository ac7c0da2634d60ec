/// What Capture stores: the descriptor without its pixels.
///
/// A pixel buffer is reduced and printed at capture; only the print is kept, never the raw
/// megapixels.
public struct SessionRecord: Hashable, Sendable, Codable {
    /// The unguessable session id: 128 random bits as 32 lower-case hex digits.
    public var id: String
    /// The captured labels, most confident first.
    public var labels: [Label]
    /// The built-in print of the captured pixels and/or the client's print.
    public var prints: [FeaturePrint]
    /// Where the descriptor came from.
    public var source: Source
    /// The person's locale.
    public var locale: String
    /// The query text shown at capture (empty: the labels are shown as chips).
    public var queryText: String
    /// Results per page.
    public var pageSize: Int
    /// When it was captured, in Unix milliseconds.
    public var createdAtUnixMs: Int64
    /// When it expires, in Unix milliseconds.
    public var expiresAtUnixMs: Int64
    /// The largest print distance an image match may have, if the capture set one (sessions
    /// stored before it existed read back without).
    public var maxDistance: Float?
    /// The catalog picture the captured pixels were answered with (see ``PictureMatch``), if any.
    public var pictureMatch: PictureMatch?

    /// Creates a record.
    public init(
        id: String, labels: [Label], prints: [FeaturePrint], source: Source, locale: String, queryText: String = "",
        pageSize: Int, createdAtUnixMs: Int64, expiresAtUnixMs: Int64, maxDistance: Float? = nil,
        pictureMatch: PictureMatch? = nil
    ) {
        self.id = id
        self.labels = labels
        self.prints = prints
        self.source = source
        self.locale = locale
        self.queryText = queryText
        self.pageSize = pageSize
        self.createdAtUnixMs = createdAtUnixMs
        self.expiresAtUnixMs = expiresAtUnixMs
        self.maxDistance = maxDistance
        self.pictureMatch = pictureMatch
    }

    /// A new random session id: 128 bits from the system's cryptographically secure generator
    /// (`getrandom(2)` on Linux), as 32 lower-case hex digits.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether `id` has the shape of a session id.
    public static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Where sessions live: in memory for tests, SQLite embedded, Redis across machines.
///
/// Every method may suspend (a network store does); implementations are safe to call concurrently.
public protocol SessionStore: Sendable {
    /// Stores a session durably: when this returns, the session survives a crash of the process.
    ///
    /// - Throws: ``SearchError/Code/storage``.
    func save(_ record: SessionRecord) async throws(SearchError)

    /// Loads a live session.
    ///
    /// - Parameters:
    ///   - id: The session id.
    ///   - nowUnixMs: The current time; a session expired at that time is not returned.
    /// - Throws: ``SearchError/Code/notFound`` for an unknown, malformed or expired id;
    ///   ``SearchError/Code/storage`` when the store fails.
    func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord

    /// Deletes sessions expired at `nowUnixMs`.
    ///
    /// - Returns: How many were deleted.
    func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int

    /// What the store holds and has done since it was opened, for metrics.
    ///
    /// Cheap and never waits for I/O: it is read on an event loop, for `GET /metrics`.
    var statistics: SessionStoreStatistics { get }
}

/// What a session store holds and has done since it was opened (by this process).
public struct SessionStoreStatistics: Sendable, Hashable {
    /// The kind of store: `memory`, `sqlite` or `redis`.
    public var kind: String
    /// Sessions in the store now, expired ones not yet purged included; `nil` when the store
    /// cannot tell cheaply (Redis, which expires sessions itself and is shared by instances).
    public var stored: Int?
    /// Sessions saved (each Capture saves one).
    public var created: Int
    /// Expired sessions deleted by purges.
    public var purged: Int
    /// Sessions dropped before their time to keep the store within its capacity (memory only).
    public var evicted: Int
    /// Commands sent to Redis that failed: no answer (unreachable, a broken connection, a
    /// timeout) or an error reply; `nil` for stores that do not use Redis.
    public var failedCommands: Int?

    public init(
        kind: String, stored: Int?, created: Int, purged: Int, evicted: Int = 0, failedCommands: Int? = nil
    ) {
        self.kind = kind
        self.stored = stored
        self.created = created
        self.purged = purged
        self.evicted = evicted
        self.failedCommands = failedCommands
    }
}

extension SearchError {
    static func sessionNotFound(_ id: String) -> SearchError {
        SearchError(code: .notFound, message: "no session \(id.prefix(64)); it may have expired")
    }
}

/// The catalog picture a capture's pixels showed, by the engine's image rule (its print, else its
/// keypoints): kept with the session, since the pixels are not, so every page of the search shows
/// it even when its print lies beyond the print threshold (a verified crop or tilted photo).
public struct PictureMatch: Hashable, Sendable, Codable {
    /// The entity whose picture it is.
    public var entity: EntityRef
    /// The print distance between the capture and the picture.
    public var distance: Float

    /// Creates a picture match.
    public init(entity: EntityRef, distance: Float) {
        self.entity = entity
        self.distance = distance
    }
}
