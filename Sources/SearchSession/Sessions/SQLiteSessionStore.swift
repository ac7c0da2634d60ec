internal import CSQLite
internal import Foundation
internal import Synchronization

/// Sessions in an SQLite database in WAL mode: the embedded default.
///
/// Durability: `journal_mode=WAL` with `synchronous=FULL`, so every committed `save` has been
/// fsynced to the WAL before it returns. With `NORMAL`, a commit survives a kill -9 of the process
/// (the WAL is in the OS page cache) but not a power cut; FULL costs one fsync per Capture and
/// also covers the power cut, which is what "acknowledged" should mean. Checkpoints (copying
/// the WAL into the database file) run on a background lane of their own, not inside a
/// Capture's commit (``WALCheckpointer``), and on close.
///
/// The async calls run their statements on a lane of their own (``BlockingLane``): a caller
/// waiting for the fsync is suspended and leaves its cooperative thread to other calls.
public final class SQLiteSessionStore: SessionStore {
    private let connection: Mutex<SQLiteConnection>
    private let lane: BlockingLane
    private let checkpointer: WALCheckpointer
    /// Rows in the table (counted at open, then kept), sessions saved and purged since open.
    private let counts: Mutex<(stored: Int, created: Int, purged: Int)>
    /// The database file.
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be opened or set up.
    public init(path: String) throws(SearchError) {
        self.path = path
        let connection = try SQLiteConnection.durable(path: path)
        try connection.execute("PRAGMA wal_autocheckpoint=0")
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS sessions (
                id TEXT PRIMARY KEY,
                expires_at_ms INTEGER NOT NULL,
                record BLOB NOT NULL
            ) WITHOUT ROWID
            """)
        try connection.execute("CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at_ms)")
        var stored = 0
        try connection.forEachRow("SELECT COUNT(*) FROM sessions") { row throws(SearchError) in stored = Int(row.int(0))
        }
        counts = Mutex((stored, 0, 0))
        self.connection = Mutex(connection)
        checkpointer = try WALCheckpointer(path: path)
        lane = BlockingLane(label: "vi-continue.sessions \(path)")
    }

    public func save(_ record: SessionRecord) async throws(SearchError) {
        let blob = record.encoded()
        try await lane.run { [self] () throws(SearchError) in
            try save(encoded: blob, id: record.id, expiresAtUnixMs: record.expiresAtUnixMs)
        }
    }

    /// Stores an encoded record; returns once SQLite has committed (and fsynced) it.
    func save(encoded blob: [UInt8], id: String, expiresAtUnixMs: Int64) throws(SearchError) {
        try connection.withLock { connection throws(SearchError) in
            try connection.run(
                "INSERT OR REPLACE INTO sessions (id, expires_at_ms, record) VALUES (?1, ?2, ?3)",
                bind: [.text(id), .int(expiresAtUnixMs), .blob(blob)])
        }
        catchUpIfAsked()
        // Ids are random 128-bit values: a save adds a row (a replace would count one too many).
        counts.withLock { counts in
            counts.stored += 1
            counts.created += 1
        }
    }

    public func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord {
        guard SessionRecord.isWellFormed(id) else { throw .sessionNotFound(id) }
        let blob = try await lane.run { [self] () throws(SearchError) in
            try connection.withLock { connection throws(SearchError) in
                try connection.queryBlob(
                    "SELECT record FROM sessions WHERE id = ?1 AND expires_at_ms > ?2",
                    bind: [.text(id), .int(nowUnixMs)])
            }
        }
        guard let blob else { throw .sessionNotFound(id) }
        return try SessionRecord(encoded: blob, id: id)
    }

    public func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int {
        try await lane.run { [self] () throws(SearchError) in
            try connection.withLock { connection throws(SearchError) in
                try connection.run("DELETE FROM sessions WHERE expires_at_ms <= ?1", bind: [.int(nowUnixMs)])
                let deleted = connection.changes
                catchUpIfAsked()
                counts.withLock { counts in
                    counts.stored -= deleted
                    counts.purged += deleted
                }
                return deleted
            }
        }
    }

    /// Counts a commit with the checkpointer and, when it asks for a catch-up, queues on this
    /// store's lane (between two saves, not inside one) the copy of what landed during its last
    /// copy, so that the next commit starts the WAL over.
    private func catchUpIfAsked() {
        guard checkpointer.committed() else { return }
        lane.enqueue { [self] in
            connection.withLock { connection in _ = try? connection.checkpointPassively() }
        }
    }

    /// The background copies of the WAL finished so far (waiting for one that is running).
    var checkpointsFinished: Int { checkpointer.copiesFinished }

    public var statistics: SessionStoreStatistics {
        counts.withLock { counts in
            SessionStoreStatistics(
                kind: "sqlite", stored: counts.stored, created: counts.created, purged: counts.purged)
        }
    }
}
