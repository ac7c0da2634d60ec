import Foundation
import Testing

@testable import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A restart takes the catalog file's fingerprint from the manifest when the file's stamp says it
/// has not changed, and reads the file whenever the stamp cannot vouch for that.
@Suite struct CatalogStampTests {
    /// Appends to the file at `path` in place (same inode, a larger size).
    static func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        handle.write(Data(text.utf8))
        try handle.close()
    }

    /// A clock past the settle time of every file these tests write.
    static func settledNow() -> Int64 { FileStamp.nowNs() + FileStamp.settleTimeNs + 1_000_000_000 }

    @Test func aSettledStampVouchesForTheFingerprintAndTheFileIsNotReadAgain() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        let path = state.catalog
        let taken = try CatalogLoader.fingerprint(path: path, remembered: nil, nowNs: Self.settledNow())
        #expect(taken.readFile)
        #expect(taken.value == (try CatalogLoader.fingerprint(path: path)))
        let stamp = try #require(taken.stamp)
        // A value no read of the file could give: only the stamp can have vouched for it.
        let again = try CatalogLoader.fingerprint(path: path, remembered: ("remembered", stamp))
        #expect(again == CatalogFingerprint(value: "remembered", stamp: stamp, readFile: false))
    }

    @Test func aFileWrittenWithinTheSettleTimeGetsNoStamp() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        let path = state.catalog
        let taken = try CatalogLoader.fingerprint(path: path, remembered: nil)
        #expect(taken.readFile)
        #expect(taken.stamp == nil)
        #expect(try CatalogLoader.load(path: path).stamp == nil)
    }

    @Test func aFileChangedSinceIsReadAgain() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        let path = state.catalog
        let stamp = try #require(
            try CatalogLoader.fingerprint(path: path, remembered: nil, nowNs: Self.settledNow()).stamp)
        // Appended in place: same inode, another size.
        try Self.append("\n", to: path)
        var taken = try CatalogLoader.fingerprint(path: path, remembered: ("remembered", stamp))
        #expect(taken.readFile)
        #expect(taken.value == (try CatalogLoader.fingerprint(path: path)))
        // Another file of the same size renamed over it: another inode.
        let current = try #require(FileStamp.of(path))
        try String(repeating: "x", count: Int(current.size)).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(FileStamp.of(path)?.size == current.size)
        taken = try CatalogLoader.fingerprint(path: path, remembered: ("remembered", current))
        #expect(taken.readFile)
        #expect(taken.value != "remembered")
    }

    @Test func aModificationTimeSetBackStillChangesTheStamp() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        let path = state.catalog
        let stamp = try #require(
            try CatalogLoader.fingerprint(path: path, remembered: nil, nowNs: Self.settledNow()).stamp)
        // Past the file clock's tick, so the change time can move.
        Thread.sleep(forTimeInterval: 0.05)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        handle.write(Data("[".utf8))
        try handle.close()
        // Same size, and the modification time put back as `touch -r` would.
        var times = [
            timespec(tv_sec: Int(stamp.modifiedNs / 1_000_000_000), tv_nsec: Int(stamp.modifiedNs % 1_000_000_000)),
            timespec(tv_sec: Int(stamp.modifiedNs / 1_000_000_000), tv_nsec: Int(stamp.modifiedNs % 1_000_000_000)),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let now = try #require(FileStamp.of(path))
        #expect(now.size == stamp.size && now.modifiedNs == stamp.modifiedNs && now.inode == stamp.inode)
        #expect(now != stamp)
        let taken = try CatalogLoader.fingerprint(path: path, remembered: ("remembered", stamp))
        #expect(taken.readFile)
        #expect(taken.value == (try CatalogLoader.fingerprint(path: path)))
    }

    @Test func aManifestWrittenBeforeStampsWereKeptStillReads() throws {
        let json = #"{"format":1,"baseline":"fnv64-1-2","synonyms":[],"version":3,"segments":[],"badLines":[]}"#
        let manifest = try JSONDecoder().decode(IndexDirectory.Manifest.self, from: Data(json.utf8))
        #expect(manifest.baseline == "fnv64-1-2")
        #expect(manifest.baselineStamp == nil)
    }

    /// The whole path, with the real clock: a file that has stood still is read by the first
    /// start only; a file replaced afterwards is read and parsed again.
    @Test func aRestartOnASettledCatalogDoesNotReadIt() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        Thread.sleep(forTimeInterval: Double(FileStamp.settleTimeNs) / 1e9 + 0.2)
        let (first, opened) = try state.open()
        #expect(opened.readCatalogFile && !opened.reusedIndex)
        let expected = try IndexPersistenceTests.answers(first)
        let (second, reopened) = try state.open()
        #expect(reopened.reusedIndex)
        #expect(!reopened.readCatalogFile)
        #expect(try IndexPersistenceTests.answers(second) == expected)
        try state.write(Fixtures.jsonl + "\n" + #"{"type":"album","id":"help","title":"Help!"}"#)
        let (third, changed) = try state.open()
        #expect(changed.readCatalogFile && !changed.reusedIndex)
        #expect(third.snapshot.count == second.snapshot.count + 1)
    }
}

/// The checksum of index files is pinned: XXH3-64's published value for no bytes, low 32 bits.
@Suite struct SegmentChecksumTests {
    @Test func theChecksumIsTheLow32BitsOfXXH3() {
        #expect([UInt8]().withUnsafeBytes { SegmentFormat.checksum($0) } == 0x38D3_94C2)
        #expect(Array("vi-continue".utf8).withUnsafeBytes { SegmentFormat.checksum($0) } == 0x4E76_78A7)
    }
}
