internal import CSQLite

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
            throw SearchError(code: .storage, message: "cannot open database \(path)", cause: message)
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
    }

    /// Opens a database whose every commit is on disk when it returns: `journal_mode=WAL` with
    /// `synchronous=FULL` (the WAL is fsynced at each commit, so an acknowledged write survives a
    /// crash or a power cut, not only a killed process).
    static func durable(path: String) throws(SearchError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=FULL")
        return connection
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

    /// Runs a query and hands each row to `body`, column by column, while the row is current.
    ///
    /// - Parameters:
    ///   - sql: The statement.
    ///   - values: Its parameters.
    ///   - body: Called once per row; the row's bytes are valid only during the call.
    func forEachRow(
        _ sql: String, bind values: [SQLiteValue] = [], _ body: (SQLiteRow) throws(SearchError) -> Void
    ) throws(SearchError) {
        let statement = try prepare(sql, values)
        defer { sqlite3_finalize(statement) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: try body(SQLiteRow(statement: statement))
            case SQLITE_DONE: return
            default: throw failure(sql)
            }
        }
    }

    /// Runs `body` inside one transaction: committed when it returns, rolled back when it throws.
    func transaction<Value>(_ body: () throws(SearchError) -> Value) throws(SearchError) -> Value {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Copies the WAL's committed frames into the database file without waiting for any
    /// reader or writer (a PASSIVE checkpoint), and returns the WAL's length in frames when it
    /// began. A commit that begins while every frame is copied starts the WAL over.
    @discardableResult
    func checkpointPassively() throws(SearchError) -> Int {
        var frames: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, nil)
        // BUSY: another connection's checkpoint is running; it does this one's work.
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else { throw failure("checkpoint") }
        return Int(frames)
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(db) }

    private func prepare(_ sql: String, _ values: [SQLiteValue]) throws(SearchError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(sql)
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes before bind returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .int(let integer): rc = sqlite3_bind_int64(statement, index, integer)
            case .text(let text): rc = sqlite3_bind_text(statement, index, text, -1, transient)
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes {
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

/// The current row of a statement, read by column index.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
