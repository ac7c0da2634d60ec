internal import Foundation
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Where a catalog's index segments live as files, with a manifest naming the segments and
/// delete bits of one snapshot: what a restart maps instead of parsing the catalog file again.
///
/// Segment files are written once (to a temporary name, fsynced, renamed) and never changed; the
/// manifest is replaced the same way, after the segments it names are on disk, so a crash leaves
/// the previous manifest or the new one, each naming whole files. Files no manifest names are
/// removed when the next one is written (a mapped file stays readable after it is unlinked).
///
/// Each segment file `NAME.vis` has its documents' local features in `NAME.vlf` beside it (see
/// ``LocalFeatureTable``), written the same way before the segment, checksummed the same way,
/// and removed with it; a start that finds one missing or damaged builds the index again from
/// the catalog file, as for a damaged segment.
///
/// A temporary directory (``temporary()``) serves an engine that keeps nothing across restarts:
/// its segments are still mapped from files (unlinked at once), so the kernel can drop their
/// untouched pages instead of keeping them as anonymous memory.
public final class IndexDirectory: Sendable {
    /// The directory.
    public let path: String
    /// Whether files are unlinked once mapped (a temporary directory keeps no manifest).
    private let unlinksFiles: Bool
    private let counter = Mutex<UInt64>(0)
    /// The segments mapped from this directory's files, by file name: a file is removed only
    /// when no manifest names it and no segment of this process maps it any more (a retained
    /// snapshot, a merge in flight), nor is it being written.
    private let mapped = Mutex<[String: WeakSegment]>([:])

    private final class WeakSegment: @unchecked Sendable {
        weak var segment: Segment?
        /// Set while ``store(_:)`` writes the files, before there is a segment to point to: a
        /// manifest written meanwhile (by a checkpoint on another thread) must not remove them.
        let isBeingWritten: Bool

        init(_ segment: Segment?, isBeingWritten: Bool = false) {
            self.segment = segment
            self.isBeingWritten = isBeingWritten
        }

        var keepsFile: Bool { isBeingWritten || segment != nil }
    }

    /// What a manifest records: one snapshot of the index.
    struct Manifest: Codable, Equatable {
        var format = 1
        /// The fingerprint of the catalog file the index was built from.
        var baseline: String
        /// The catalog file's stamp when `baseline` was taken, if it vouches for it: a start that
        /// finds the file with this stamp takes `baseline` without reading the file. Absent in
        /// manifests written before stamps were kept.
        var baselineStamp: FileStamp?
        var synonyms: [[String]]
        /// The catalog version the segments hold (the catalog log's position).
        var version: UInt64
        var segments: [Entry]
        /// The catalog file's bad lines, reported again when the index is reused.
        var badLines: [CatalogLineError]

        struct Entry: Codable, Equatable {
            var file: String
            var deleted: [Int]
        }
    }

    /// Opens (creating if needed) an index directory.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be created.
    public init(path: String) throws(SearchError) {
        self.path = path
        unlinksFiles = false
        try Self.makeDirectory(path)
    }

    private init(temporaryPath: String) {
        path = temporaryPath
        unlinksFiles = true
    }

    /// Segment files in `$TMPDIR` (or /tmp), each unlinked as soon as it is mapped: nothing is
    /// left behind, whenever the process ends.
    public static func temporary() -> IndexDirectory {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return IndexDirectory(temporaryPath: base)
    }

    private static func makeDirectory(_ path: String) throws(SearchError) {
        var prefix = ""
        for (index, component) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            prefix = index == 0 ? String(component) : prefix + "/" + component
            if prefix.isEmpty { continue }
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .storageFailure("cannot create index directory \(path)")
            }
        }
    }

    /// Writes a segment to a new file and maps it.
    ///
    /// - Returns: The same segment, read from its file.
    func store(_ segment: Segment) throws(SearchError) -> Segment {
        let name = counter.withLock { counter in
            counter += 1
            return "segment-\(UInt64(Date().timeIntervalSince1970 * 1000))-\(getpid())-\(counter).vis"
        }
        let file = path + "/" + name
        let featureFile = path + "/" + Self.localFeatureFile(of: name)
        if !unlinksFiles { mapped.withLock { $0[name] = WeakSegment(nil, isBeingWritten: true) } }
        var stored: Segment?
        // Mapped: the segment keeps its files from now on; failed: the next manifest removes them.
        defer { if !unlinksFiles { mapped.withLock { $0[name] = stored.map { WeakSegment($0) } } } }
        // The features first: a segment file on disk always has its features beside it.
        try segment.localFeatures.region.write(to: featureFile)
        try segment.region.write(to: file)
        let localFeatures = try LocalFeatureTable(ByteRegion.map(path: featureFile))
        let mappedSegment = try Segment(ByteRegion.map(path: file), localFeatures: localFeatures, fileName: name)
        stored = mappedSegment
        if unlinksFiles {
            unlink(file)
            unlink(featureFile)
        }
        return mappedSegment
    }

    /// The name of the local feature file of segment file `name`.
    static func localFeatureFile(of name: String) -> String {
        (name.hasSuffix(".vis") ? String(name.dropLast(4)) : name) + ".vlf"
    }

    /// The manifest, if there is a readable one.
    func manifest() -> Manifest? {
        guard let data = FileManager.default.contents(atPath: path + "/manifest.json") else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: data)
    }

    /// Replaces the manifest (fsynced, renamed into place, directory fsynced), then removes the
    /// segment files that neither it names nor a live segment maps.
    func write(_ manifest: Manifest) throws(SearchError) {
        let bytes = manifest.jsonText()
        let region = ByteRegion.build(count: bytes.count) { $0.copyBytes(from: bytes) }
        try region.write(to: path + "/manifest.json")
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        removeUnused(keeping: manifest)
    }

    /// Removes segment files that `manifest` does not name and no live segment maps (at start,
    /// those a crash left between writing a segment and the manifest).
    func removeUnused(keeping manifest: Manifest?) {
        let named = Set(manifest?.segments.map(\.file) ?? [])
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        mapped.withLock { mapped in
            for file in files where file.hasSuffix(".vis") && !named.contains(file) {
                if mapped[file]?.keepsFile == true { continue }
                mapped[file] = nil
                unlink(path + "/" + file)
            }
            // A feature file goes with its segment file (or alone, when a crash came between them).
            for file in files where file.hasSuffix(".vlf") {
                let segmentFile = String(file.dropLast(4)) + ".vis"
                if named.contains(segmentFile) || mapped[segmentFile]?.keepsFile == true { continue }
                unlink(path + "/" + file)
            }
        }
    }

    /// Maps the segments a manifest names.
    ///
    /// - Throws: ``SearchError/Code/storage`` when a file (a segment or its local features) is
    ///   missing, damaged or not whole.
    func segments(of manifest: Manifest) throws(SearchError) -> [(Segment, DeleteSet)] {
        var out = [(Segment, DeleteSet)]()
        for entry in manifest.segments {
            let region = try ByteRegion.map(path: path + "/" + entry.file)
            let featureRegion = try ByteRegion.map(path: path + "/" + Self.localFeatureFile(of: entry.file))
            // Written by an earlier run: whatever happened to the files since, they are checked whole.
            try SegmentFormat.verifyChecksum(of: region)
            try SegmentFormat.verifyChecksum(of: featureRegion, describing: "index local feature file")
            let segment = try Segment(
                region, localFeatures: LocalFeatureTable(featureRegion), fileName: entry.file)
            mapped.withLock { $0[entry.file] = WeakSegment(segment) }
            var deletes = DeleteSet(documents: segment.count)
            for doc in entry.deleted where doc >= 0 && doc < segment.count { deletes.insert(doc) }
            out.append((segment, deletes))
        }
        return out
    }
}
