import Foundation
import Testing

@testable import SearchSession

/// The index manifest is written by hand (``IndexDirectory/Manifest/jsonText()``) and read with
/// `JSONDecoder`: what it reads back must be what was written, and what `JSONEncoder`'s text of
/// the same manifest reads back as.
@Suite struct ManifestTextTests {
    static let awkward = [
        "", "plain", "quote \" and backslash \\", "slash / and tab \t", "new\nline\r", "\u{0}\u{1}\u{1f}\u{7f}",
        "Ünïcode Ω 東京 🎸", "é (e + ◌́)",
    ]

    static func manifests() -> [IndexDirectory.Manifest] {
        let stamp = FileStamp(device: .max, inode: 1 << 40, size: 0, modifiedNs: -1, changedNs: .max)
        return [
            IndexDirectory.Manifest(baseline: "", synonyms: [], version: 0, segments: [], badLines: []),
            IndexDirectory.Manifest(
                baseline: "fnv:0123456789abcdef", baselineStamp: stamp, synonyms: [awkward, ["tv", "television"], []],
                version: .max,
                segments: [
                    .init(file: "seg-1.vis", deleted: []),
                    .init(file: awkward[2], deleted: [0, 1, 9, 10, 99, 1_000_000, Int(Int32.max)]),
                ],
                badLines: awkward.enumerated().map { CatalogLineError(line: $0.offset + 1, reason: $0.element) }),
        ]
    }

    @Test func theTextReadsBackAsTheManifestAndAsJSONEncodersDoes() throws {
        for manifest in Self.manifests() {
            let text = Data(manifest.jsonText())
            let read = try JSONDecoder().decode(IndexDirectory.Manifest.self, from: text)
            #expect(read == manifest)
            let encoders = try JSONDecoder().decode(
                IndexDirectory.Manifest.self, from: try JSONEncoder().encode(manifest))
            #expect(read == encoders)
            // Valid JSON for any reader, not only Foundation's.
            #expect(try JSONSerialization.jsonObject(with: text) is [String: Any])
        }
    }

    @Test func aWrittenManifestIsTheOneReadFromTheDirectory() throws {
        let state = try IndexPersistenceTests.StateDirectory()
        let index = try IndexDirectory(path: state.path + "/index")
        let manifest = Self.manifests()[1]
        try index.write(manifest)
        #expect(index.manifest() == manifest)
    }
}
