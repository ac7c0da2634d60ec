internal import Synchronization

/// The catalog log's folded changes: one row per entity ever written through the API (its last
/// version, or that it was deleted), as of a position of the log, in a database of their own.
///
/// Why a database apart from the log: folding writes every entity of the changes it folds again
/// (a step of 1,600 rows held the log 100–160 ms at listings-1m, most of it the commit's
/// fsync), and in the log's database that held the log's one connection, so a write waited for
/// its append behind a merge's checkpoint (49–81 ms). Here the fold writes without the log; the
/// log is held only to read the changes and then drop them.
///
/// The rows belong to one baseline of the log (``CatalogLog``): rows folded under an older
/// baseline are ignored, and the next fold clears them.
final class CatalogFoldedRows: Sendable {
    /// The database file.
    let path: String
    private let connection: Mutex<SQLiteConnection>

    /// Where the rows are: the log position they were folded through, and the baseline whose
    /// changes they are.
    struct Mark: Equatable {
        var position: UInt64
        var baseline: UInt64

        /// The position the rows were folded through, when they are `baseline`'s; else `nil`
        /// (an older baseline's rows count as none).
        func position(under baseline: UInt64) -> UInt64? { self.baseline == baseline ? position : nil }
    }

    /// Opens (creating if needed) the rows at `path`.
    ///
    /// - Throws: ``SearchError/Code/storage`` when they cannot be opened or set up.
    init(path: String) throws(SearchError) {
        self.path = path
        let connection = try SQLiteConnection.durable(path: path)
        // A rowid table: an entity's record is about a kilobyte, too large for the key's b-tree
        // (SQLite's advice for WITHOUT ROWID tables is rows under a twentieth of a page).
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS folded (
                type TEXT NOT NULL,
                id TEXT NOT NULL,
                deleted INTEGER NOT NULL,
                entity BLOB,
                UNIQUE (type, id)
            )
            """)
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS marks (name TEXT PRIMARY KEY, position INTEGER NOT NULL)")
        self.connection = Mutex(connection)
    }

    /// Where the rows are, or `nil` when nothing was folded yet.
    func mark() throws(SearchError) -> Mark? {
        try connection.withLock { connection throws(SearchError) in try Self.mark(on: connection) }
    }

    /// Folds `entries` (changes of the log, oldest first, all after the current mark) into the
    /// rows, in one transaction, and moves the mark to the last of them under `baseline`; rows of
    /// another baseline are dropped first.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the rows cannot be written or a change cannot
    ///   be decoded; nothing is folded then.
    func fold(_ entries: [(position: UInt64, payload: [UInt8])], baseline: UInt64) throws(SearchError) {
        guard let last = entries.last?.position else { return }
        try connection.withLock { connection throws(SearchError) in
            try connection.transaction { () throws(SearchError) in
                if let mark = try Self.mark(on: connection), mark.baseline != baseline {
                    try connection.execute("DELETE FROM folded")
                }
                // Oldest first: an entity's row ends as its last change left it. Entity records
                // are copied as they are (see CatalogChange+Binary): only their references are read.
                for (at, payload) in entries {
                    if let records = try CatalogChange.entityRecords(encoded: payload, position: at) {
                        for (ref, record) in records { try Self.put(ref, record: Array(record), on: connection) }
                    } else if case .delete(let refs) = try CatalogChange(encoded: payload, position: at) {
                        for ref in refs { try Self.put(ref, record: nil, on: connection) }
                    }
                }
                try Self.setMark(Mark(position: last, baseline: baseline), on: connection)
            }
        }
    }

    /// Replaces the rows with `rows` at `mark`: for moving the rows of a log that kept them in
    /// its own database.
    func replace(with rows: [(ref: EntityRef, record: [UInt8]?)], at mark: Mark) throws(SearchError) {
        try connection.withLock { connection throws(SearchError) in
            try connection.transaction { () throws(SearchError) in
                try connection.execute("DELETE FROM folded")
                for (ref, record) in rows { try Self.put(ref, record: record, on: connection) }
                try Self.setMark(mark, on: connection)
            }
            // All the rows went through the WAL in one transaction, which would otherwise stay that long.
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// The rows of `baseline` as two batches at their mark's position (upserts, then deletes: an
    /// entity has one row, so their order does not matter), or none.
    func changes(baseline: UInt64) throws(SearchError) -> [(position: UInt64, change: CatalogChange)] {
        try connection.withLock { connection throws(SearchError) in
            guard let mark = try Self.mark(on: connection), let position = mark.position(under: baseline) else {
                return []
            }
            var upserts = [Entity]()
            var deletes = [EntityRef]()
            try connection.forEachRow("SELECT type, id, deleted, entity FROM folded ORDER BY type, id") {
                row throws(SearchError) in
                if row.int(2) != 0 {
                    deletes.append(EntityRef(type: row.text(0) ?? "", id: row.text(1) ?? ""))
                } else {
                    upserts.append(try CatalogChange.decodeEntity(row.blob(3), position: position))
                }
            }
            var changes = [(position: UInt64, change: CatalogChange)]()
            if !upserts.isEmpty { changes.append((position, .upsert(upserts))) }
            if !deletes.isEmpty { changes.append((position, .delete(deletes))) }
            return changes
        }
    }

    /// Writes `ref`'s row: its last version's `record`, or, when `nil`, that it was deleted.
    private static func put(_ ref: EntityRef, record: [UInt8]?, on connection: borrowing SQLiteConnection)
        throws(SearchError)
    {
        if let record {
            try connection.run(
                "INSERT OR REPLACE INTO folded (type, id, deleted, entity) VALUES (?1, ?2, 0, ?3)",
                bind: [.text(ref.type), .text(ref.id), .blob(record)])
        } else {
            try connection.run(
                "INSERT OR REPLACE INTO folded (type, id, deleted, entity) VALUES (?1, ?2, 1, NULL)",
                bind: [.text(ref.type), .text(ref.id)])
        }
    }

    private static func mark(on connection: borrowing SQLiteConnection) throws(SearchError) -> Mark? {
        var position: UInt64?
        var baseline: UInt64?
        try connection.forEachRow("SELECT name, position FROM marks") { row in
            switch row.text(0) {
            case "folded": position = UInt64(row.int(1))
            case "baseline": baseline = UInt64(row.int(1))
            default: break
            }
        }
        guard let position, let baseline else { return nil }
        return Mark(position: position, baseline: baseline)
    }

    private static func setMark(_ mark: Mark, on connection: borrowing SQLiteConnection) throws(SearchError) {
        try connection.run(
            "INSERT OR REPLACE INTO marks (name, position) VALUES ('folded', ?1), ('baseline', ?2)",
            bind: [.int(Int64(mark.position)), .int(Int64(mark.baseline))])
    }
}
