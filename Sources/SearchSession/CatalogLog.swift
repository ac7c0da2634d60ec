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
/// the changes up to it into one row per entity (its last version, or that it was deleted) and
/// drops them, in one transaction. The log then holds what changed since the checkpoint plus one
/// row per entity ever written, not every batch ever written; nothing is lost, because a start
/// whose index cannot be used replays the folded rows before the changes after them.
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
        // Changes folded per entity: its last upserted version, or a tombstone; and the position
        // they were folded through.
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS catalog_folded (
                type TEXT NOT NULL,
                id TEXT NOT NULL,
                deleted INTEGER NOT NULL,
                entity BLOB,
                PRIMARY KEY (type, id)
            ) WITHOUT ROWID
            """)
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS catalog_marks (name TEXT PRIMARY KEY, position INTEGER NOT NULL)")
        self.connection = Mutex(connection)
    }

    /// Finds the changes that apply to the catalog file with `fingerprint`, starting a new
    /// baseline when the file is not the one the last baseline recorded.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the log cannot be read or written, or holds a
    ///   change it cannot decode (a log written by a newer version).
    func recover(fingerprint: String) throws(SearchError) -> Recovery {
        try connection.withLock { connection throws(SearchError) in
            var last: (position: Int64, fingerprint: String?)?
            try connection.forEachRow(
                "SELECT position, fingerprint FROM catalog_log WHERE kind = 'baseline' ORDER BY position DESC LIMIT 1"
            ) { row throws(SearchError) in last = (row.int(0), row.text(1)) }
            if let last, last.fingerprint == fingerprint {
                var changes = [(position: UInt64, change: CatalogChange)]()
                let folded = try Self.foldedPosition(on: connection)
                var version = max(UInt64(last.position), folded)
                try connection.forEachRow(
                    "SELECT position, payload FROM catalog_log WHERE position > ?1 ORDER BY position",
                    bind: [.int(last.position)]
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
    /// The changes are folded a few at a time, each few in a transaction of its own: the log is
    /// locked for one such step, not the whole fold, so a write waits at most a step for its
    /// append (the fold runs at a merge's low priority). Every step leaves a log that recovers
    /// everything: the folded rows through its mark, the changes after it.
    ///
    /// - Returns: How many changes were folded.
    @discardableResult
    func fold(through position: UInt64) throws(SearchError) -> Int {
        var folded = 0
        while true {
            let step = try connection.withLock { connection throws(SearchError) in
                try connection.transaction { () throws(SearchError) -> Int in
                    try Self.foldStep(through: position, on: connection)
                }
            }
            if step == 0 { return folded }
            folded += step
        }
    }

    /// The changes folded per transaction.
    static let changesPerFoldStep = 16

    /// Folds the oldest changes through `position`, at most ``changesPerFoldStep``; returns how many.
    private static func foldStep(through position: UInt64, on connection: borrowing SQLiteConnection)
        throws(SearchError)
        -> Int
    {
        var entries = [(position: UInt64, payload: [UInt8])]()
        try connection.forEachRow(
            "SELECT position, payload FROM catalog_log WHERE kind = 'change' AND position <= ?1 ORDER BY position "
                + "LIMIT ?2",
            bind: [.int(Int64(position)), .int(Int64(changesPerFoldStep))]
        ) { row in entries.append((UInt64(row.int(0)), row.blob(1))) }
        guard let last = entries.last?.position else { return 0 }
        // Oldest first: an entity's row ends as its last change left it. Entity records are
        // copied as they are (see CatalogChange+Binary): only their references are read.
        for (at, payload) in entries {
            if let records = try CatalogChange.entityRecords(encoded: payload, position: at) {
                for (ref, record) in records {
                    try connection.run(
                        "INSERT OR REPLACE INTO catalog_folded (type, id, deleted, entity) VALUES (?1, ?2, 0, ?3)",
                        bind: [.text(ref.type), .text(ref.id), .blob(Array(record))])
                }
            } else if case .delete(let refs) = try CatalogChange(encoded: payload, position: at) {
                for ref in refs {
                    try connection.run(
                        "INSERT OR REPLACE INTO catalog_folded (type, id, deleted, entity) VALUES (?1, ?2, 1, NULL)",
                        bind: [.text(ref.type), .text(ref.id)])
                }
            }
        }
        try connection.run(
            "DELETE FROM catalog_log WHERE kind = 'change' AND position <= ?1", bind: [.int(Int64(last))])
        try connection.run(
            "INSERT OR REPLACE INTO catalog_marks (name, position) VALUES ('folded', ?1)", bind: [.int(Int64(last))])
        return entries.count
    }

    /// The folded changes as two batches at the position they were folded through (upserts,
    /// then deletes: an entity has one row, so their order does not matter), or none.
    func foldedChanges() throws(SearchError) -> [(position: UInt64, change: CatalogChange)] {
        try connection.withLock { connection throws(SearchError) in
            let folded = try Self.foldedPosition(on: connection)
            guard folded > 0 else { return [] }
            var upserts = [Entity]()
            var deletes = [EntityRef]()
            try connection.forEachRow("SELECT type, id, deleted, entity FROM catalog_folded ORDER BY type, id") {
                row throws(SearchError) in
                if row.int(2) != 0 {
                    deletes.append(EntityRef(type: row.text(0) ?? "", id: row.text(1) ?? ""))
                } else {
                    upserts.append(try CatalogChange.decodeEntity(row.blob(3), position: folded))
                }
            }
            var changes = [(position: UInt64, change: CatalogChange)]()
            if !upserts.isEmpty { changes.append((folded, .upsert(upserts))) }
            if !deletes.isEmpty { changes.append((folded, .delete(deletes))) }
            return changes
        }
    }

    /// The position the changes were folded through, or 0.
    private static func foldedPosition(on connection: borrowing SQLiteConnection) throws(SearchError) -> UInt64 {
        var folded: UInt64 = 0
        try connection.forEachRow("SELECT position FROM catalog_marks WHERE name = 'folded'") { row in
            folded = UInt64(row.int(0))
        }
        return folded
    }

    private static func appendBaseline(_ fingerprint: String, on connection: borrowing SQLiteConnection)
        throws(SearchError)
        -> UInt64
    {
        try connection.transaction { () throws(SearchError) -> UInt64 in
            try connection.run(
                "INSERT INTO catalog_log (kind, fingerprint) VALUES ('baseline', ?1)", bind: [.text(fingerprint)])
            let position = connection.lastInsertedRowID
            try connection.run("DELETE FROM catalog_log WHERE position < ?1", bind: [.int(position)])
            try connection.execute("DELETE FROM catalog_folded")
            try connection.execute("DELETE FROM catalog_marks WHERE name = 'folded'")
            return UInt64(position)
        }
    }
}
