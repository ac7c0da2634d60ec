import Foundation
import Testing

@testable import SearchSession

/// The catalog write log: what an engine reopened on the same file and log recovers.
@Suite struct CatalogLogTests {
    /// A fresh log file in the temporary directory, removed with its WAL files at the end.
    final class TemporaryLog {
        let path = NSTemporaryDirectory() + "vi-continue-log-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        func open() throws -> CatalogLog { try CatalogLog(path: path) }
        deinit {
            for file in [path, CatalogLog.foldedPath(for: path)] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
            }
        }
    }

    static var file: CatalogFile { CatalogLoader.parse(Array(Fixtures.jsonl.utf8)) }

    static func engine(_ file: CatalogFile = Self.file, log: CatalogLog) throws -> SearchEngine {
        try SearchEngine(catalog: file, log: log, nowMs: { 1_900_000_000_000 })
    }

    static let beatles = QueryRequest(descriptor: Descriptor(labels: [Label("beatles")]))

    @Test func writesSurviveAReopenWithTheSameVersionAndTheSameAnswers() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        let start = first.snapshot.version
        try first.upsert([
            Entity(type: "album", id: "revolver", title: "Revolver", subtitle: "The Beatles", tags: ["rock"]),
            Entity(type: "album", id: "abbey-road", title: "Abbey Road Remastered", subtitle: "The Beatles"),
        ])
        try first.delete([EntityRef(type: "album", id: "let-it-be")])
        try first.upsert([Entity(type: "album", id: "let-it-be", title: "Let It Be… Naked")])
        let answers = try first.query(Self.beatles)

        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(second.snapshot.version == start + 3)
        #expect(second.snapshot.entities == first.snapshot.entities)
        #expect(try second.query(Self.beatles) == answers)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "let-it-be"))?.title == "Let It Be… Naked")
    }

    @Test func aRejectedBatchLeavesNothingInTheLog() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        let version = first.snapshot.version
        #expect(throws: SearchError.self) {
            try first.upsert([
                Entity(type: "album", id: "good", title: "Good"), Entity(type: "album", id: "", title: ""),
            ])
        }
        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == version)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "good")) == nil)
    }

    @Test func aWriteTheLogCannotTakeIsNeitherAcknowledgedNorSeen() throws {
        // The write builds its next snapshot while the log appends: a failed append must leave
        // the snapshot it built unseen.
        let log = TemporaryLog()
        let engine = try Self.engine(log: log.open())
        let before = engine.snapshot
        let other = try SQLiteConnection(path: log.path)
        try other.execute("DROP TABLE catalog_log")
        #expect(throws: SearchError.self) {
            try engine.upsert([Entity(type: "album", id: "unlogged", title: "Unlogged")])
        }
        #expect(engine.snapshot === before)
        #expect(engine.snapshot.entity(EntityRef(type: "album", id: "unlogged")) == nil)
    }

    @Test func aChangedCatalogFileStartsANewBaselineAndDropsTheWritesBeforeIt() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        let edited = CatalogLoader.parse(
            Array((Fixtures.jsonl + "\n" + #"{"type":"album","id":"help","title":"Help!"}"#).utf8))
        let second = try Self.engine(edited, log: log.open())
        #expect(second.snapshot.version > first.snapshot.version)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "revolver")) == nil)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "help")) != nil)
        // Writes on top of the new baseline survive the next restart, and versions keep rising.
        try second.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        let third = try Self.engine(edited, log: log.open())
        #expect(third.snapshot.version == second.snapshot.version)
        #expect(third.snapshot.entity(EntityRef(type: "album", id: "revolver")) != nil)
        // Going back to the first file is a change too: a new baseline, never an old version again.
        let fourth = try Self.engine(log: log.open())
        #expect(fourth.snapshot.version > third.snapshot.version)
        #expect(fourth.snapshot.entity(EntityRef(type: "album", id: "revolver")) == nil)
    }

    @Test func aReloadThroughTheEngineStartsABaselineInTheLog() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        let edited = CatalogLoader.parse(Array(#"{"type":"album","id":"help","title":"Help!"}"#.utf8))
        let reload = try first.replace(with: edited)
        try first.upsert([Entity(type: "album", id: "rubber-soul", title: "Rubber Soul")])
        let second = try Self.engine(edited, log: log.open())
        #expect(reload.catalogVersion < second.snapshot.version)
        #expect(second.snapshot.entities.map(\.id) == ["help", "rubber-soul"])
    }

    @Test func aPageTokenOfAVersionNoLongerKeptAsksToStartAgain() throws {
        let engine = SearchEngine(catalog: Self.file, retention: .seconds(900), maximumRetained: 1)
        let session = SessionRecord(
            id: "s", labels: [], prints: [], source: .camera, locale: "", pageSize: 2, createdAtUnixMs: 0,
            expiresAtUnixMs: .max)
        let first = try engine.search(session: session, request: SearchRequest(sessionID: "s"))
        try engine.upsert([Entity(type: "album", id: "a", title: "A")])
        try engine.upsert([Entity(type: "album", id: "b", title: "B")])
        let error = #expect(throws: SearchError.self) {
            try engine.search(session: session, request: SearchRequest(sessionID: "s", pageToken: first.nextPageToken))
        }
        #expect(error?.code == .catalogChanged)
        #expect(error?.message.hasSuffix("start again from page 1") == true)
    }

    @Test func aReplayOfManyWritesMergesAsTheLiveEngineDoes() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        for round in 0..<40 {
            try first.upsert([Entity(type: "track", id: "t\(round % 25)", title: "Take \(round)", tags: ["take"])])
            if round % 7 == 0 { try first.delete([EntityRef(type: "track", id: "t\(round % 5)")]) }
        }
        first.mergeUntilSettled()
        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(second.snapshot.segments.count < 10)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        let takes = QueryRequest(descriptor: Descriptor(labels: [Label("take")]), limit: 20)
        #expect(Set(try second.query(takes).map(\.entity)) == Set(try first.query(takes).map(\.entity)))
    }

    @Test func foldedWritesSurviveAReopenAndANewBaselineDropsThem() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        try first.delete([EntityRef(type: "album", id: "revolver")])
        try first.upsert([Entity(type: "album", id: "help", title: "Help!")])
        #expect(try log.open().fold(through: first.snapshot.version) == 3)
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver (again)")])

        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "revolver"))?.title == "Revolver (again)")

        var changed = Self.file
        changed.fingerprint = "another file"
        let third = try Self.engine(changed, log: log.open())
        #expect(third.snapshot.entity(EntityRef(type: "album", id: "help")) == nil)
        #expect(try log.open().foldedChanges().isEmpty)
        // The next fold clears the older baseline's rows: only this baseline's write is there.
        try third.upsert([Entity(type: "album", id: "rubber-soul", title: "Rubber Soul")])
        #expect(try log.open().fold(through: third.snapshot.version) == 1)
        let folded = try log.open().foldedChanges()
        #expect(folded.count == 1)
        guard case .upsert(let entities) = folded.first?.change else {
            Issue.record("expected one folded upsert")
            return
        }
        #expect(entities.map(\.id) == ["rubber-soul"])
    }

    /// The changes of the log, as stored, with their positions.
    static func storedChanges(of path: String) throws -> [(position: Int64, payload: [UInt8])] {
        let connection = try SQLiteConnection(path: path)
        var changes = [(position: Int64, payload: [UInt8])]()
        try connection.forEachRow("SELECT position, payload FROM catalog_log WHERE kind = 'change' ORDER BY position") {
            row in changes.append((row.int(0), row.blob(1)))
        }
        return changes
    }

    @Test func aFoldCutShortBeforeItDroppedItsChangesLosesNothingAndTheNextFoldDropsThem() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver (mono)")])
        try first.delete([EntityRef(type: "album", id: "let-it-be")])
        let stored = try Self.storedChanges(of: log.path)
        #expect(stored.count == 3)
        #expect(try log.open().fold(through: first.snapshot.version) == 3)
        // As if the process died after the rows were written and before the log dropped them.
        do {
            let connection = try SQLiteConnection(path: log.path)
            for (position, payload) in stored {
                try connection.run(
                    "INSERT INTO catalog_log (position, kind, payload) VALUES (?1, 'change', ?2)",
                    bind: [.int(position), .blob(payload)])
            }
        }
        try first.upsert([Entity(type: "album", id: "help", title: "Help!")])
        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "revolver"))?.title == "Revolver (mono)")
        // The next fold takes only the change after the rows' mark, and drops the three again.
        #expect(try log.open().fold(through: second.snapshot.version) == 1)
        #expect(try Self.storedChanges(of: log.path).isEmpty)
        let third = try Self.engine(log: log.open())
        #expect(Set(third.snapshot.entities) == Set(first.snapshot.entities))
    }

    @Test func foldedRowsAnEarlierVersionKeptInTheLogsDatabaseAreMovedBesideIt() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        try first.delete([EntityRef(type: "album", id: "let-it-be")])
        #expect(try log.open().fold(through: first.snapshot.version) == 2)
        try first.upsert([Entity(type: "album", id: "help", title: "Help!")])
        let mark = try #require(try log.open().foldedRows.mark())
        // The earlier layout: the rows and their mark in the log's own database, no file beside it.
        do {
            let folded = try SQLiteConnection(path: CatalogLog.foldedPath(for: log.path))
            var rows = [(type: String, id: String, deleted: Int64, entity: [UInt8])]()
            try folded.forEachRow("SELECT type, id, deleted, entity FROM folded") { row in
                rows.append((row.text(0) ?? "", row.text(1) ?? "", row.int(2), row.blob(3)))
            }
            #expect(rows.count == 2)
            let connection = try SQLiteConnection(path: log.path)
            try connection.execute(
                "CREATE TABLE catalog_folded (type TEXT NOT NULL, id TEXT NOT NULL, deleted INTEGER NOT NULL, "
                    + "entity BLOB, PRIMARY KEY (type, id)) WITHOUT ROWID")
            try connection.execute("CREATE TABLE catalog_marks (name TEXT PRIMARY KEY, position INTEGER NOT NULL)")
            for row in rows {
                try connection.run(
                    "INSERT INTO catalog_folded (type, id, deleted, entity) VALUES (?1, ?2, ?3, ?4)",
                    bind: [.text(row.type), .text(row.id), .int(row.deleted), .blob(row.entity)])
            }
            try connection.run(
                "INSERT INTO catalog_marks (name, position) VALUES ('folded', ?1)", bind: [.int(Int64(mark.position))])
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: CatalogLog.foldedPath(for: log.path) + suffix)
        }
        // A start whose index cannot be used replays the moved rows on the file, then the change after.
        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        #expect(try log.open().foldedRows.mark() == mark)
        let connection = try SQLiteConnection(path: log.path)
        var tables = [String]()
        try connection.forEachRow("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row in
            tables.append(row.text(0) ?? "")
        }
        #expect(!tables.contains("catalog_folded") && !tables.contains("catalog_marks"))
        // Neither WAL keeps the length of the move.
        for file in [log.path, CatalogLog.foldedPath(for: log.path)] {
            let size = try FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int
            #expect(size == 0)
        }
    }

    @Test func aFoldOfMoreChangesThanOneStepTakesKeepsEveryOne() throws {
        let log = TemporaryLog()
        let first = try Self.engine(log: log.open())
        let changes = CatalogLog.changesPerFoldStep * 2 + 5
        for n in 0..<changes {
            if n % 3 == 2 {
                try first.delete([EntityRef(type: "album", id: "step\(n - 1)")])
            } else {
                try first.upsert([Entity(type: "album", id: "step\(n)", title: "Step \(n)", tags: ["t\(n % 4)"])])
            }
        }
        // Folded through all but the last two: three steps and a part, the rest left as changes.
        #expect(try log.open().fold(through: first.snapshot.version - 2) == changes - 2)
        let second = try Self.engine(log: log.open())
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        #expect(try log.open().fold(through: first.snapshot.version) == 2)
        let third = try Self.engine(log: log.open())
        #expect(Set(third.snapshot.entities) == Set(first.snapshot.entities))
    }
}
