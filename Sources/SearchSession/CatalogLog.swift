internal import Foundation
internal import Synchronization

/// The durable record of catalog writes, in an SQLite database: what an acknowledged upsert or
/// delete survives a crash on.
///
/// The log holds *baselines* and *changes*, numbered by one increasing position that is also the
/// catalog version. A baseline records which catalog file the changes after it apply to (by a
/// fingerprint of the file's bytes); a change is one whole upsert or delete batch, written in one
/// transaction, so a batch is either entirely in the log or not at all.
///
/// How the catalog file and API writes combine: the file is the baseline, writes are changes on
/// top of it. While the file is unchanged, every restart loads it and replays the changes after
/// its baseline. A changed file (found at start or by a reload) starts a new baseline: the file
/// replaces the catalog, and the changes before it are dropped from the log.
///
/// Durability: `journal_mode=WAL` with `synchronous=FULL`, so ``append(_:)`` returns only after
/// the batch is fsynced; SQLite's own recovery rolls back a transaction torn by a crash.
/// Positions come from `AUTOINCREMENT`, so they are never reused, even after old rows are dropped.
public final class CatalogLog: Sendable {
    /// The database file.
    public let path: String
    private let connection: Mutex<SQLiteConnection>

    /// What ``recover(fingerprint:)`` found: the changes to replay on top of the catalog file.
    struct Recovery {
        /// The changes after the file's baseline, oldest first, with their positions.
        var changes: [(position: UInt64, change: CatalogChange)]
        /// The catalog version after them: the last position, or the new baseline's.
        var version: UInt64
        /// Whether the file differed from the last baseline, which made a new one.
        var startedBaseline: Bool
    }

    /// Opens (creating if needed) the log at `path`.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be opened or set up.
    public init(path: String) throws(SearchError) {
        self.path = path
        let c = try SQLiteConnection.durable(path: path)
        try c.execute(
            """
            CREATE TABLE IF NOT EXISTS catalog_log (
                position INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL CHECK (kind IN ('baseline', 'change')),
                fingerprint TEXT,
                payload BLOB
            )
            """)
        connection = Mutex(c)
    }

    /// Finds the changes that apply to the catalog file with `fingerprint`, starting a new
    /// baseline when the file is not the one the last baseline recorded.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the log cannot be read or written, or holds a
    ///   change it cannot decode (a log written by a newer version).
    func recover(fingerprint: String) throws(SearchError) -> Recovery {
        try connection.withLock { c throws(SearchError) in
            var last: (position: Int64, fingerprint: String?)?
            try c.forEachRow(
                "SELECT position, fingerprint FROM catalog_log WHERE kind = 'baseline' ORDER BY position DESC LIMIT 1"
            ) { row throws(SearchError) in last = (row.int(0), row.text(1)) }
            if let last, last.fingerprint == fingerprint {
                var changes = [(position: UInt64, change: CatalogChange)]()
                var version = UInt64(last.position)
                try c.forEachRow(
                    "SELECT position, payload FROM catalog_log WHERE position > ?1 ORDER BY position",
                    bind: [.int(last.position)]
                ) { row throws(SearchError) in
                    let position = UInt64(row.int(0))
                    changes.append((position, try CatalogChange(encoded: row.blob(1), position: position)))
                    version = position
                }
                return Recovery(changes: changes, version: version, startedBaseline: false)
            }
            let position = try Self.appendBaseline(fingerprint, on: c)
            return Recovery(changes: [], version: position, startedBaseline: true)
        }
    }

    /// Records a new catalog file as the baseline and drops the changes it replaces.
    ///
    /// - Returns: The baseline's position: the version of the catalog it starts.
    func startBaseline(fingerprint: String) throws(SearchError) -> UInt64 {
        try connection.withLock { c throws(SearchError) in try Self.appendBaseline(fingerprint, on: c) }
    }

    /// Appends one batch; returns once it is durable.
    ///
    /// - Returns: Its position: the catalog version that includes it.
    func append(_ change: CatalogChange) throws(SearchError) -> UInt64 {
        let payload = try change.encoded()
        return try connection.withLock { c throws(SearchError) in
            try c.run(
                "INSERT INTO catalog_log (kind, payload) VALUES ('change', ?1)", bind: [.blob(payload)])
            return UInt64(c.lastInsertedRowID)
        }
    }

    private static func appendBaseline(_ fingerprint: String, on c: borrowing SQLiteConnection) throws(SearchError)
        -> UInt64
    {
        try c.transaction { () throws(SearchError) -> UInt64 in
            try c.run(
                "INSERT INTO catalog_log (kind, fingerprint) VALUES ('baseline', ?1)", bind: [.text(fingerprint)])
            let position = c.lastInsertedRowID
            try c.run("DELETE FROM catalog_log WHERE position < ?1", bind: [.int(position)])
            return UInt64(position)
        }
    }
}
