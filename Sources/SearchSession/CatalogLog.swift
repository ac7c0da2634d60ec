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
///
/// Size: once a checkpoint has written the index through a position, ``fold(through:)`` folds
/// the changes up to it into one row per entity (its last version, or that it was deleted), kept
/// in a database beside the log (``CatalogFoldedRows``), then drops them from the log. The log
/// then holds what changed since the checkpoint, and the folded rows one row per entity ever
/// written, not every batch ever written; nothing is lost, because a start whose index cannot be
/// used replays the folded rows before the changes after them.
public final class CatalogLog: Sendable {
    /// The database file.
    public let path: String
    private let connection: Mutex<SQLiteConnection>
    /// Where the folded changes are (internal: tests read its mark).
    let foldedRows: CatalogFoldedRows

    /// What ``recover(fingerprint:)`` found: the changes to replay on top of the catalog file.
    struct Recovery {
        /// The changes after the file's baseline, oldest first, with their positions.
        var changes: [(position: UInt64, change: CatalogChange)]
        /// The catalog version after them: the last position, or the new baseline's.
        var version: UInt64
        /// Whether the file differed from the last baseline, which made a new one.
        var startedBaseline: Bool
        /// The position the changes were folded through (``fold(through:)``), or 0: an index
        /// written before it lacks changes the log no longer holds one by one.
        var folded: UInt64 = 0
    }

    /// Opens (creating if needed) the log at `path`.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be opened or set up.
    public init(path: String) throws(SearchError) {
        self.path = path
        let connection = try SQLiteConnection.durable(path: path)
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS catalog_log (
                position INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL CHECK (kind IN ('baseline', 'change')),
                fingerprint TEXT,
                payload BLOB
            )
            """)
        foldedRows = try CatalogFoldedRows(path: Self.foldedPath(for: path))
        try Self.moveFoldedRows(of: connection, to: foldedRows)
        self.connection = Mutex(connection)
    }

    /// Where the folded rows of the log at `path` are: `catalog-log.sqlite` → `catalog-log-folded.sqlite`.
    static func foldedPath(for path: String) -> String {
        path.hasSuffix(".sqlite") ? String(path.dropLast(".sqlite".count)) + "-folded.sqlite" : path + "-folded"
    }

    /// Moves the folded rows a log written by an earlier version kept in its own database (tables
    /// `catalog_folded` and `catalog_marks`) to `foldedRows`, then drops those tables. A crash
    /// between the two leaves the tables, and the next open moves the same rows again.
    private static func moveFoldedRows(
        of connection: borrowing SQLiteConnection, to foldedRows: CatalogFoldedRows
    ) throws(SearchError) {
        var hasTables = false
        try connection.forEachRow("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'catalog_folded'") {
            _ in hasTables = true
        }
        guard hasTables else { return }
        var position: UInt64?
        try connection.forEachRow("SELECT position FROM catalog_marks WHERE name = 'folded'") { row in
            position = UInt64(row.int(0))
        }
        if let position, let baseline = try lastBaseline(on: connection) {
            var rows = [(ref: EntityRef, record: [UInt8]?)]()
            try connection.forEachRow("SELECT type, id, deleted, entity FROM catalog_folded") { row in
                rows.append(
                    (EntityRef(type: row.text(0) ?? "", id: row.text(1) ?? ""), row.int(2) != 0 ? nil : row.blob(3)))
            }
            try foldedRows.replace(
                with: rows, at: CatalogFoldedRows.Mark(position: position, baseline: UInt64(baseline.position)))
        }
        try connection.transaction { () throws(SearchError) in
            try connection.execute("DROP TABLE catalog_folded")
            try connection.execute("DROP TABLE IF EXISTS catalog_marks")
        }
        // Dropping the rows went through the WAL, which would otherwise stay that long.
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The last baseline's position and fingerprint, or `nil` before the first.
    private static func lastBaseline(on connection: borrowing SQLiteConnection) throws(SearchError) -> (
        position: Int64, fingerprint: String?
    )? {
        var last: (position: Int64, fingerprint: String?)?
        try connection.forEachRow(
            "SELECT position, fingerprint FROM catalog_log WHERE kind = 'baseline' ORDER BY position DESC LIMIT 1"
        ) { row throws(SearchError) in last = (row.int(0), row.text(1)) }
        return last
    }

    /// Finds the changes that apply to the catalog file with `fingerprint`, starting a new
    /// baseline when the file is not the one the last baseline recorded.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the log cannot be read or written, or holds a
    ///   change it cannot decode (a log written by a newer version).
    func recover(fingerprint: String) throws(SearchError) -> Recovery {
        let mark = try foldedRows.mark()
        return try connection.withLock { connection throws(SearchError) in
            if let last = try Self.lastBaseline(on: connection), last.fingerprint == fingerprint {
                var changes = [(position: UInt64, change: CatalogChange)]()
                // Rows folded under this baseline; a change the fold wrote there but had not yet
                // dropped from the log (a crash between the two) is replayed from the rows.
                let folded = mark?.position(under: UInt64(last.position)) ?? 0
                var version = max(UInt64(last.position), folded)
                try connection.forEachRow(
                    "SELECT position, payload FROM catalog_log WHERE position > ?1 ORDER BY position",
                    bind: [.int(max(last.position, Int64(folded)))]
                ) { row throws(SearchError) in
                    let position = UInt64(row.int(0))
                    changes.append((position, try CatalogChange(encoded: row.blob(1), position: position)))
                    version = position
                }
                return Recovery(changes: changes, version: version, startedBaseline: false, folded: folded)
            }
            let position = try Self.appendBaseline(fingerprint, on: connection)
            return Recovery(changes: [], version: position, startedBaseline: true)
        }
    }

    /// Records a new catalog file as the baseline and drops the changes it replaces.
    ///
    /// - Returns: The baseline's position: the version of the catalog it starts.
    func startBaseline(fingerprint: String) throws(SearchError) -> UInt64 {
        try connection.withLock { connection throws(SearchError) in try Self.appendBaseline(fingerprint, on: connection)
        }
    }

    /// Appends one batch; returns once it is durable.
    ///
    /// - Returns: Its position: the catalog version that includes it.
    func append(_ change: CatalogChange) throws(SearchError) -> UInt64 {
        let payload = change.encoded()
        return try connection.withLock { connection throws(SearchError) in
            try connection.run(
                "INSERT INTO catalog_log (kind, payload) VALUES ('change', ?1)", bind: [.blob(payload)])
            return UInt64(connection.lastInsertedRowID)
        }
    }

    /// Folds the changes through `position` into one row per entity and drops them: call it
    /// once an index that includes them is durable (a checkpoint's manifest).
    ///
    /// The changes are folded a few at a time: read from the log, written to the folded rows
    /// (their own transaction and fsync, without the log), then dropped from the log. The log is
    /// held only to read and to drop, so a write's append does not wait for the folding. Every
    /// step leaves a log that recovers everything: the folded rows through their mark, the
    /// changes after it.
    ///
    /// - Returns: How many changes were folded.
    @discardableResult
    func fold(through position: UInt64) throws(SearchError) -> Int {
        guard let baseline = try lastBaselinePosition() else { return 0 }
        var folded = 0
        while true {
            // After the rows' mark when they are this baseline's (a step whose drop from the log
            // did not happen, after a crash, is not folded twice), else after the baseline.
            let after = try foldedRows.mark()?.position(under: baseline) ?? baseline
            let entries = try connection.withLock { connection throws(SearchError) in
                var entries = [(position: UInt64, payload: [UInt8])]()
                try connection.forEachRow(
                    "SELECT position, payload FROM catalog_log WHERE kind = 'change' AND position > ?1 "
                        + "AND position <= ?2 ORDER BY position LIMIT ?3",
                    bind: [.int(Int64(after)), .int(Int64(position)), .int(Int64(Self.changesPerFoldStep))]
                ) { row in entries.append((UInt64(row.int(0)), row.blob(1))) }
                return entries
            }
            guard let last = entries.last?.position else {
                // What a step folded before a crash dropped it stays in the log until here.
                if after > baseline {
                    try connection.withLock { connection throws(SearchError) in
                        try connection.run(
                            "DELETE FROM catalog_log WHERE kind = 'change' AND position <= ?1",
                            bind: [.int(Int64(min(after, position)))])
                    }
                }
                return folded
            }
            try foldedRows.fold(entries, baseline: baseline)
            try connection.withLock { connection throws(SearchError) in
                try connection.run(
                    "DELETE FROM catalog_log WHERE kind = 'change' AND position <= ?1", bind: [.int(Int64(last))])
            }
            folded += entries.count
        }
    }

    /// The changes folded per step.
    static let changesPerFoldStep = 16

    /// The folded changes as two batches at the position they were folded through (upserts,
    /// then deletes: an entity has one row, so their order does not matter), or none.
    func foldedChanges() throws(SearchError) -> [(position: UInt64, change: CatalogChange)] {
        guard let baseline = try lastBaselinePosition() else { return [] }
        return try foldedRows.changes(baseline: baseline)
    }

    /// The last baseline's position, or `nil` before the first.
    private func lastBaselinePosition() throws(SearchError) -> UInt64? {
        try connection.withLock { connection throws(SearchError) in
            try Self.lastBaseline(on: connection).map { UInt64($0.position) }
        }
    }

    private static func appendBaseline(_ fingerprint: String, on connection: borrowing SQLiteConnection)
        throws(SearchError)
        -> UInt64
    {
        try connection.transaction { () throws(SearchError) -> UInt64 in
            try connection.run(
                "INSERT INTO catalog_log (kind, fingerprint) VALUES ('baseline', ?1)", bind: [.text(fingerprint)])
            let position = connection.lastInsertedRowID
            // The folded rows of the baselines before stay until the next fold: they are ignored
            // meanwhile (see CatalogFoldedRows).
            try connection.run("DELETE FROM catalog_log WHERE position < ?1", bind: [.int(position)])
            return UInt64(position)
        }
    }
}
