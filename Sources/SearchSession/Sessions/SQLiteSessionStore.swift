internal import CSQLite
internal import Foundation
internal import Synchronization

/// Sessions in an SQLite database in WAL mode: the embedded default.
///
/// Durability: `journal_mode=WAL` with `synchronous=FULL`, so every committed `save` has been
/// fsynced to the WAL before it returns. With `NORMAL`, a commit survives a kill -9 of the process
/// (the WAL is in the OS page cache) but not a power cut; FULL costs one fsync per Capture and
/// also covers the power cut, which is what "acknowledged" should mean. Checkpoints run
/// automatically (every 1000 WAL pages) and on close.
public final class SQLiteSessionStore: SessionStore {
    private let connection: Mutex<SQLiteConnection>
    /// The database file.
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be opened or set up.
    public init(path: String) throws(SearchError) {
        self.path = path
        let c = try SQLiteConnection(path: path)
        try c.execute("PRAGMA journal_mode=WAL")
        try c.execute("PRAGMA synchronous=FULL")
        try c.execute(
            """
            CREATE TABLE IF NOT EXISTS sessions (
                id TEXT PRIMARY KEY,
                expires_at_ms INTEGER NOT NULL,
                record BLOB NOT NULL
            ) WITHOUT ROWID
            """)
        try c.execute("CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at_ms)")
        connection = Mutex(c)
    }

    public func save(_ record: SessionRecord) async throws(SearchError) {
        let blob: [UInt8]
        do {
            blob = Array(try JSONEncoder().encode(record))
        } catch {
            throw SearchError(code: .storage, message: "cannot encode session", cause: "\(error)")
        }
        try save(encoded: blob, id: record.id, expiresAtUnixMs: record.expiresAtUnixMs)
    }

    /// Stores an encoded record; returns once SQLite has committed (and fsynced) it.
    func save(encoded blob: [UInt8], id: String, expiresAtUnixMs: Int64) throws(SearchError) {
        try connection.withLock { c throws(SearchError) in
            try c.run(
                "INSERT OR REPLACE INTO sessions (id, expires_at_ms, record) VALUES (?1, ?2, ?3)",
                bind: [.text(id), .int(expiresAtUnixMs), .blob(blob)])
        }
    }

    public func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord {
        guard SessionRecord.isWellFormed(id) else { throw .sessionNotFound(id) }
        let blob = try connection.withLock { c throws(SearchError) in
            try c.queryBlob(
                "SELECT record FROM sessions WHERE id = ?1 AND expires_at_ms > ?2", bind: [.text(id), .int(nowUnixMs)])
        }
        guard let blob else { throw .sessionNotFound(id) }
        do {
            return try JSONDecoder().decode(SessionRecord.self, from: Data(blob))
        } catch {
            throw SearchError(code: .storage, message: "session \(id) is unreadable", cause: "\(error)")
        }
    }

    public func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int {
        try connection.withLock { c throws(SearchError) in
            try c.run("DELETE FROM sessions WHERE expires_at_ms <= ?1", bind: [.int(nowUnixMs)])
            return c.changes
        }
    }
}

/// A value to bind to a statement parameter.
enum SQLiteValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
}

/// Owns one `sqlite3` connection; closing it is the deinit's job.
struct SQLiteConnection: ~Copyable {
    private let db: OpaquePointer

    init(path: String) throws(SearchError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SearchError(code: .storage, message: "cannot open session database \(path)", cause: message)
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { sqlite3_close_v2(db) }

    var changes: Int { Int(sqlite3_changes(db)) }

    func execute(_ sql: String) throws(SearchError) {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SearchError(code: .storage, message: "SQLite: \(sql.prefix(40))", cause: message)
        }
    }

    func run(_ sql: String, bind values: [SQLiteValue]) throws(SearchError) {
        let statement = try prepare(sql, values)
        defer { sqlite3_finalize(statement) }
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE else { throw failure(sql) }
    }

    func queryBlob(_ sql: String, bind values: [SQLiteValue]) throws(SearchError) -> [UInt8]? {
        let statement = try prepare(sql, values)
        defer { sqlite3_finalize(statement) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            let count = Int(sqlite3_column_bytes(statement, 0))
            guard count > 0, let bytes = sqlite3_column_blob(statement, 0) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        case SQLITE_DONE: return nil
        default: throw failure(sql)
        }
    }

    private func prepare(_ sql: String, _ values: [SQLiteValue]) throws(SearchError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(sql)
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes before bind returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, v) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch v {
            case .int(let n): rc = sqlite3_bind_int64(statement, index, n)
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, transient)
            case .blob(let b):
                rc = b.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
            if rc != SQLITE_OK {
                sqlite3_finalize(statement)
                throw failure(sql)
            }
        }
        return statement
    }

    private func failure(_ sql: String) -> SearchError {
        SearchError(code: .storage, message: "SQLite: \(sql.prefix(40))", cause: String(cString: sqlite3_errmsg(db)))
    }
}
