import Foundation
import Testing

@_spi(Benchmarks) @testable import SearchSession

/// The engine's image path with ImageMatchRule: a catalog of picture files, their keypoints
/// found at indexing and kept beside the segments, and camera frames answered by the rule.
@Suite struct PictureMatchTests {
    /// Textured scenes, as files of a catalog in a fresh state directory; scenes 0..<8 are in the
    /// catalog, the others are not.
    final class PictureCatalog {
        let state: IndexPersistenceTests.StateDirectory
        static let inCatalog: [UInt64] = Array(0..<8)

        init() throws {
            state = try IndexPersistenceTests.StateDirectory(catalog: "")
            try FileManager.default.createDirectory(atPath: state.path + "/pictures", withIntermediateDirectories: true)
            var lines = [String]()
            for seed in Self.inCatalog {
                let picture = LocalFeaturesTests.scene(seed)
                let png = try ImageEncoder.png(width: picture.width, height: picture.height, rgb: picture.pixels)
                let name = "pictures/\(seed).png"
                #expect(FileManager.default.createFile(atPath: state.path + "/" + name, contents: Data(png)))
                lines.append(#"{"type":"album","id":"p\#(seed)","title":"Picture \#(seed)","image_file":"\#(name)"}"#)
            }
            try state.write(lines.joined(separator: "\n"))
        }

        var indexFiles: [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: state.path + "/index")) ?? []
        }
    }

    static func sheet(_ engine: SearchEngine, _ picture: RGBImage) throws -> [QueryResult] {
        try engine.query(QueryRequest(descriptor: Descriptor(pixelBuffer: picture.buffer, source: .camera)))
    }

    static let perturbed: [(String, @Sendable (RGBImage) -> RGBImage)] = [
        ("corner crop 70%", { $0.cropped(x0: 0, y0: 0, w: $0.width * 7 / 10, h: $0.height * 7 / 10) }),
        ("rotate 10°", { $0.rotated(degrees: 10) }),
        ("rotate -15°", { $0.rotated(degrees: -15) }),
    ]

    @Test("a cropped or turned catalog picture is answered with itself", arguments: 0..<3)
    func perturbedPicturesMatch(perturbation: Int) throws {
        let catalog = try PictureCatalog()
        let (engine, _) = try catalog.state.open()
        let (name, perturb) = Self.perturbed[perturbation]
        for seed: UInt64 in [1, 4, 6] {
            let results = try Self.sheet(engine, perturb(LocalFeaturesTests.scene(seed)))
            #expect(results.first?.entity == EntityRef(type: "album", id: "p\(seed)"), "\(name), scene \(seed)")
            #expect(results.first?.match == .image)
        }
    }

    @Test("a picture that is not in the catalog gets an empty sheet")
    func heldOutPicturesAreAnsweredEmpty() throws {
        let catalog = try PictureCatalog()
        let (engine, _) = try catalog.state.open()
        for seed: UInt64 in [20, 21, 22, 23] {
            let results = try Self.sheet(engine, LocalFeaturesTests.scene(seed))
            #expect(results.isEmpty, "scene \(seed): \(results)")
        }
    }

    @Test("an accepted picture beyond the print threshold reaches the sheet and the capture's search")
    func acceptedPicturesPassTheRankersThreshold() async throws {
        let catalog = try PictureCatalog()
        let (engine, _) = try catalog.state.open()
        // The corner of scene 3: its print lies past the Ranker's 0.12, its keypoints verify.
        let query = LocalFeaturesTests.scene(3).cropped(x0: 0, y0: 0, w: 320 * 6 / 10, h: 240 * 6 / 10)
        let results = try Self.sheet(engine, query)
        #expect(results.first?.entity.id == "p3")
        #expect(try #require(results.first?.distance) > FeaturePrinter.defaultMaxDistance)
        let sessions = SearchSessions(engine: engine, store: InMemorySessionStore())
        let state = try await sessions.capture(Descriptor(pixelBuffer: query.buffer, source: .camera))
        #expect(state.results.first?.entity.id == "p3")
    }

    @Test("the keypoints are stored beside each segment and a restart answers the same")
    func storedLocalFeaturesRoundTrip() throws {
        let catalog = try PictureCatalog()
        let queries = Self.perturbed.map { $0.1(LocalFeaturesTests.scene(4)) } + [LocalFeaturesTests.scene(21)]
        let first = try catalog.state.open().0
        let expected = try queries.map { try Self.sheet(first, $0) }
        #expect(expected.first?.first?.entity.id == "p4")
        let segments = catalog.indexFiles.filter { $0.hasSuffix(".vis") }
        #expect(!segments.isEmpty)
        for segment in segments {
            #expect(catalog.indexFiles.contains(IndexDirectory.localFeatureFile(of: segment)))
        }
        let (second, opening) = try catalog.state.open()
        #expect(opening.reusedIndex)
        #expect(second.snapshot.segments[0].localFeatures.keypointCount(of: 0) > 0)
        #expect(try queries.map { try Self.sheet(second, $0) } == expected)
    }

    @Test("a damaged keypoint file is refused by its checksum and the index rebuilt from the pictures")
    func aDamagedLocalFeatureFileIsRebuilt() throws {
        let catalog = try PictureCatalog()
        let query = Self.perturbed[0].1(LocalFeaturesTests.scene(1))
        var expected: [QueryResult] = []
        do {
            let (engine, _) = try catalog.state.open()
            expected = try Self.sheet(engine, query)
            #expect(expected.first?.entity.id == "p1")
        }
        let manifest = try #require(IndexDirectory(path: catalog.state.path + "/index").manifest())
        let file = catalog.state.path + "/index/" + IndexDirectory.localFeatureFile(of: manifest.segments[0].file)
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data([byte ^ 0x40]))
        try handle.close()
        let region = try ByteRegion.map(path: file)
        #expect(throws: SearchError.self) {
            try SegmentFormat.verifyChecksum(of: region, describing: "index local feature file")
        }
        let (second, reopened) = try catalog.state.open()
        #expect(!reopened.reusedIndex)
        #expect(try Self.sheet(second, query) == expected)
    }

    @Test("merged segments carry their pictures' keypoints")
    func mergesKeepLocalFeatures() throws {
        let pictures = (0..<4).map { LocalFeaturesTests.scene(UInt64(30 + $0)) }
        let engine = SearchEngine(entities: [])
        for (index, picture) in pictures.enumerated() {
            var entity = Entity(
                type: "album", id: "m\(index)", title: "Merged \(index)", prints: [FeaturePrinter.print(picture.buffer)]
            )
            entity.localFeatures = LocalFeatures.extract(picture.buffer)
            let segment = Segment(entities: [entity], analyzer: Analyzer(synonyms: []))
            #expect(segment.localFeatures.keypointCount(of: 0) == entity.localFeatures!.count)
            try engine.upsert([entity])
        }
        let snapshot = engine.snapshot
        let merge = SegmentMerge(0..<snapshot.segments.count, of: snapshot)
        for doc in 0..<merge.merged!.count {
            #expect(merge.merged!.localFeatures.keypointCount(of: doc) > 0, "document \(doc)")
        }
    }
}
