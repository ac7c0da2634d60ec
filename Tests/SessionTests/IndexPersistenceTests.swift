import Foundation
import Synchronization
import Testing

@testable import SearchSession

/// The index written to a state directory and mapped again: a restart answers as the engine that
/// wrote it did, without parsing the catalog file.
@Suite struct IndexPersistenceTests {
    /// A catalog file, a log and an index directory in a fresh temporary directory.
    final class StateDirectory {
        let path = NSTemporaryDirectory() + "vi-continue-state-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        var catalog: String { path + "/catalog.jsonl" }

        init(catalog text: String = Fixtures.jsonl) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try write(text)
        }

        func write(_ text: String) throws { try text.write(toFile: catalog, atomically: true, encoding: .utf8) }

        func open() throws -> (SearchEngine, CatalogOpening) {
            try SearchEngine.open(
                catalogAt: catalog, log: CatalogLog(path: path + "/log.sqlite"),
                index: IndexDirectory(path: path + "/index"))
        }

        /// Changes the first segment file of the index on disk with `damage` and returns its path.
        @discardableResult
        func damageFirstSegment(_ damage: (FileHandle) throws -> Void) throws -> String {
            let manifest = try #require(IndexDirectory(path: path + "/index").manifest())
            let file = path + "/index/" + manifest.segments[0].file
            let handle = try #require(FileHandle(forUpdatingAtPath: file))
            try damage(handle)
            try handle.close()
            return file
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let queries = [
        QueryRequest(descriptor: Descriptor(labels: [Label("beatles")])),
        QueryRequest(descriptor: Descriptor(labels: [Label("guitar"), Label("jazz")])),
        QueryRequest(descriptor: Descriptor(featurePrint: FeaturePrint(model: "m3", values: [0, 0.1, 1]))),
    ]

    static func answers(_ engine: SearchEngine) throws -> [[QueryResult]] {
        try queries.map { try engine.query($0) }
    }

    static func page(_ engine: SearchEngine) throws -> SearchState {
        let session = SessionRecord(
            id: "s", labels: [Label("music")], prints: [], source: .camera, locale: "", pageSize: 3,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
        return try engine.search(session: session, request: SearchRequest(sessionID: "s"))
    }

    @Test func aFirstStartBuildsTheIndexAndASecondMapsItWithTheSameAnswers() throws {
        let state = try StateDirectory()
        let (first, opened) = try state.open()
        #expect(!opened.reusedIndex)
        #expect(opened.entities == 8)
        #expect(first.snapshot.segments.allSatisfy { $0.fileName != nil })
        let (second, reopened) = try state.open()
        #expect(reopened.reusedIndex)
        #expect(reopened.replayedChanges == 0)
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(try Self.answers(second) == (try Self.answers(first)))
        var page = try Self.page(second)
        var firstPage = try Self.page(first)
        // Page tokens name a generation of their own process; the rest is the same.
        page.nextPageToken = ""
        firstPage.nextPageToken = ""
        #expect(page == firstPage)
    }

    @Test func writesAfterACheckpointAreReplayedOnTheMappedIndex() throws {
        let state = try StateDirectory()
        let (first, _) = try state.open()
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver", subtitle: "The Beatles")])
        try first.checkpoint()
        try first.delete([EntityRef(type: "album", id: "let-it-be")])
        try first.upsert([Entity(type: "album", id: "help", title: "Help!", subtitle: "The Beatles")])
        let (second, reopened) = try state.open()
        #expect(reopened.reusedIndex)
        #expect(reopened.replayedChanges == 2)
        #expect(second.snapshot.version == first.snapshot.version)
        #expect(Set(second.snapshot.entities) == Set(first.snapshot.entities))
        #expect(try Self.answers(second) == (try Self.answers(first)))
    }

    @Test func anEditedCatalogFileIsParsedAgainAndStartsABaseline() throws {
        let state = try StateDirectory()
        let (first, _) = try state.open()
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        try state.write(Fixtures.jsonl + "\n" + #"{"type":"album","id":"help","title":"Help!"}"#)
        let (second, reopened) = try state.open()
        #expect(!reopened.reusedIndex)
        #expect(second.snapshot.version > first.snapshot.version)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "help")) != nil)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "revolver")) == nil)
    }

    @Test func mergedSegmentsAreFilesAndUnusedOnesAreRemoved() throws {
        let state = try StateDirectory()
        func files() throws -> Set<String> {
            Set(
                try FileManager.default.contentsOfDirectory(atPath: state.path + "/index").filter {
                    $0.hasSuffix(".vis")
                })
        }
        var count = 0
        do {
            let (engine, _) = try state.open()
            for round in 0..<20 {
                try engine.upsert([Entity(type: "track", id: "t\(round)", title: "Track \(round)", tags: ["take"])])
            }
            engine.mergeUntilSettled()
            try engine.checkpoint()
            engine.waitUntilIdle()
            count = engine.snapshot.count
            let manifest = try #require(IndexDirectory(path: state.path + "/index").manifest())
            #expect(manifest.segments.count == engine.snapshot.segments.count)
            // Segments merged away may still be mapped by snapshots kept for page tokens.
            #expect(Set(manifest.segments.map(\.file)).isSubset(of: try files()))
        }
        // Once no process maps them, only the manifest's files are left.
        let (reopened, opening) = try state.open()
        #expect(opening.reusedIndex)
        #expect(reopened.snapshot.count == count)
        let manifest = try #require(IndexDirectory(path: state.path + "/index").manifest())
        #expect(try files() == Set(manifest.segments.map(\.file)))
    }

    @Test func aManifestWrittenWhileASegmentIsStoredLeavesItsFiles() throws {
        // A checkpoint on one thread writes a manifest (and removes the files it does not name)
        // while a merge on another stores its segment: the files being written are not removed,
        // so the manifest that names them next finds them on disk.
        let state = try StateDirectory()
        let index = try IndexDirectory(path: state.path + "/index")
        let segments = (0..<40).map { round in
            Segment(entities: RandomCatalog.entities(30, seed: UInt64(round)), analyzer: Analyzer(synonyms: []))
        }
        let empty = IndexDirectory.Manifest(baseline: "test", synonyms: [], version: 1, segments: [], badLines: [])
        final class Race: Sendable {
            let storing = Atomic<Bool>(true)
            let manifests = Atomic<Int>(0)
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
        }
        let race = Race()
        // A thread of its own (a pool might run both sides one after the other on a busy machine).
        Thread {
            race.started.signal()
            repeat {
                if (try? index.write(empty)) != nil { race.manifests.add(1, ordering: .relaxed) }
            } while race.storing.load(ordering: .acquiring)
            race.finished.signal()
        }.start()
        race.started.wait()
        var kept = [Segment]()
        for segment in segments {
            if let file = try? index.store(segment) { kept.append(file) }
        }
        race.storing.store(false, ordering: .releasing)
        race.finished.wait()
        #expect(kept.count == segments.count)
        #expect(race.manifests.load(ordering: .relaxed) > 0)
        for segment in kept {
            let name = try #require(segment.fileName)
            #expect(FileManager.default.fileExists(atPath: index.path + "/" + name), "\(name)")
            let features = index.path + "/" + IndexDirectory.localFeatureFile(of: name)
            #expect(FileManager.default.fileExists(atPath: features), "\(features)")
        }
    }

    @Test func theFileFingerprintReadInChunksEqualsTheOneOfTheWholeBytes() throws {
        let state = try StateDirectory(catalog: String(repeating: "0123456789abcdef", count: 140_000) + "tail")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: state.catalog)))
        #expect(try CatalogLoader.fingerprint(path: state.catalog) == CatalogLoader.fingerprint(of: bytes))
    }

    @Test func aTruncatedSegmentFileIsRefusedAndTheIndexRebuilt() throws {
        let state = try StateDirectory()
        // The first engine is gone before its file is damaged: a mapped file must not shrink
        // under a reader (the index never truncates its files; it writes new ones).
        let expected = try Self.answers(try state.open().0)
        let file = try state.damageFirstSegment { try $0.truncate(atOffset: 100) }
        #expect(throws: SearchError.self) { try Segment(ByteRegion.map(path: file)) }
        let (second, reopened) = try state.open()
        #expect(!reopened.reusedIndex)
        #expect(try Self.answers(second) == expected)
    }

    @Test func aSegmentOfAnOlderFormatIsNotMappedButRebuilt() throws {
        let state = try StateDirectory()
        let expected = try Self.answers(try state.open().0)
        // An upgrade finds the files the previous release wrote: their magic names the older format.
        let file = try state.damageFirstSegment { handle in
            try handle.seek(toOffset: 0)
            handle.write(Data("VISEG011".utf8))
        }
        #expect(throws: SearchError.self) { try Segment(ByteRegion.map(path: file)) }
        let (second, reopened) = try state.open()
        #expect(!reopened.reusedIndex)
        #expect(try Self.answers(second) == expected)
        #expect(try state.open().1.reusedIndex)
    }

    @Test("a segment file with one byte changed on disk is refused by its checksum, and nothing is lost")
    func aDamagedSegmentFileIsRefusedByItsChecksum() throws {
        let state = try StateDirectory()
        var expected: [[QueryResult]] = []
        do {
            let (engine, _) = try state.open()
            try engine.upsert([Entity(type: "album", id: "beatles-live", title: "Beatles Live at the BBC")])
            try engine.checkpoint()
            expected = try Self.answers(engine)
            #expect(expected[0].contains { $0.entity.id == "beatles-live" })
        }
        let file = try state.damageFirstSegment { handle in
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            let byte = try #require(handle.readData(ofLength: 1).first)
            try handle.seek(toOffset: size / 2)
            handle.write(Data([byte ^ 0x10]))
        }
        #expect(throws: SearchError.self) { try SegmentFormat.verifyChecksum(of: ByteRegion.map(path: file)) }
        let (second, reopened) = try state.open()
        #expect(!reopened.reusedIndex)
        #expect(try Self.answers(second) == expected)
        // The rebuilt index is written afresh: the next start maps it again.
        #expect(try state.open().1.reusedIndex)
    }

    @Test func aCheckpointFoldsTheLogAndAStartWithoutTheIndexStillRecoversEveryWrite() throws {
        let state = try StateDirectory()
        let (first, _) = try state.open()
        // Many batches on few entities: folded, the log keeps one row per entity.
        for round in 0..<20 {
            try first.upsert([
                Entity(type: "album", id: "revolver", title: "Revolver \(round)", subtitle: "The Beatles"),
                Entity(type: "album", id: "help", title: "Help! \(round)"),
            ])
        }
        try first.delete([EntityRef(type: "album", id: "help"), EntityRef(type: "album", id: "absent")])
        try first.delete([EntityRef(type: "album", id: "let-it-be")])
        first.waitUntilIdle()  // the background merges, and their checkpoints, are done
        try first.checkpoint()
        let log = try CatalogLog(path: state.path + "/log.sqlite")
        let recovery = try log.recover(fingerprint: try CatalogLoader.fingerprint(path: state.catalog))
        #expect(recovery.changes.isEmpty)
        #expect(recovery.folded == first.snapshot.version)
        #expect(recovery.version == first.snapshot.version)
        let folded = try log.foldedChanges()
        #expect(folded.count == 2)  // one batch of upserts, one of deletes
        if case .upsert(let entities) = folded.first?.change {
            #expect(entities.map(\.title) == ["Revolver 19"])
        } else {
            Issue.record("the folded upserts come first")
        }
        // Writes after the fold are changes of their own again.
        try first.upsert([Entity(type: "album", id: "let-it-be", title: "Let It Be… Naked")])
        first.waitUntilIdle()
        let expected = Set(first.snapshot.entities)

        // The mapped index plus the one change after it.
        let (second, reopened) = try state.open()
        second.waitUntilIdle()
        #expect(reopened.reusedIndex)
        #expect(reopened.replayedChanges == 1)
        #expect(Set(second.snapshot.entities) == expected)
        #expect(second.snapshot.version == first.snapshot.version)

        // Without the index: the file, the folded rows, then the change after them.
        try FileManager.default.removeItem(atPath: state.path + "/index")
        let (third, rebuilt) = try state.open()
        #expect(!rebuilt.reusedIndex)
        #expect(Set(third.snapshot.entities) == expected)
        #expect(third.snapshot.version == first.snapshot.version)
        #expect(third.snapshot.entity(EntityRef(type: "album", id: "help")) == nil)
        #expect(third.snapshot.entity(EntityRef(type: "album", id: "revolver"))?.title == "Revolver 19")
    }

    @Test func anIndexOlderThanTheFoldIsNotMappedOverChangesItLacks() throws {
        let state = try StateDirectory()
        let (first, _) = try state.open()
        let oldManifest = try Data(contentsOf: URL(fileURLWithPath: state.path + "/index/manifest.json"))
        try first.upsert([Entity(type: "album", id: "revolver", title: "Revolver")])
        try first.checkpoint()
        // As if the newer manifest had been lost: the older one names an index without the write,
        // and the log holds the write only folded.
        try oldManifest.write(to: URL(fileURLWithPath: state.path + "/index/manifest.json"))
        let (second, reopened) = try state.open()
        #expect(!reopened.reusedIndex)
        #expect(second.snapshot.entity(EntityRef(type: "album", id: "revolver"))?.title == "Revolver")
    }
}
