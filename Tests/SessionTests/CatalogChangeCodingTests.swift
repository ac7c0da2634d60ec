import Foundation
import Testing

@_spi(Fuzzing) @testable import SearchSession

/// The catalog log's binary form of changes (CatalogChange+Binary.swift): its bytes, round trips,
/// damaged entries, and logs written before it in JSON.
@Suite struct CatalogChangeCodingTests {
    static let small = Entity(type: "a", id: "1", title: "T", attributes: ["n": .number(2)])

    /// Every field set, with text outside ASCII and numbers that JSON would round.
    static let full = Entity(
        type: "album", id: "revolver-½", title: "Revolver", subtitle: "The Beatles · 1966", category: "Music/Rock",
        tags: ["rock", "", "ß"],
        attributes: ["year": .number(1966), "tiny": .number(-1e-300), "label": .string("Parlophone")],
        imageURL: "https://example.com/r.jpg", thumbnailURL: "https://example.com/r-t.jpg",
        prints: [FeaturePrint(model: "m", values: [0.1, -2.5, .leastNonzeroMagnitude])],
        related: [EntityRef(type: "artist", id: "beatles")],
        localized: [
            "de": LocalizedText(title: "Revolver (de)", subtitle: ""),
            "ja": LocalizedText(title: "リボルバー", subtitle: "ビートルズ"),
        ],
        link: "app://album/revolver")

    @Test func anEntityAndItsChangesHaveTheseBytes() {
        let entity: [UInt8] = [
            0x01,  // form
            0x01, 0x61, 0x01, 0x31, 0x01, 0x54,  // type "a", id "1", title "T"
            0x00, 0x00, 0x00, 0x00, 0x00,  // subtitle, category, image, thumbnail, link
            0x00,  // no tags
            0x01, 0x01, 0x6E, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x40,  // attribute "n", number 2.0
            0x00, 0x00, 0x00,  // no prints, related or localized texts
        ]
        #expect(CatalogChange.encode(Self.small) == entity)
        #expect(CatalogChange.upsert([Self.small]).encoded() == [0x01, 0x75, 0x01, UInt8(entity.count)] + entity)
        #expect(
            CatalogChange.delete([EntityRef(type: "a", id: "1")]).encoded() == [
                0x01, 0x64, 0x01, 0x01, 0x61, 0x01, 0x31,
            ])
    }

    @Test func changesComeBackEqual() throws {
        for change in [
            CatalogChange.upsert([Self.full, Self.small]), .upsert([]),
            .delete([EntityRef(type: "album", id: "revolver-½"), EntityRef(type: "a", id: "1")]),
        ] {
            #expect(try CatalogChange(encoded: change.encoded(), position: 7) == change)
        }
        #expect(try CatalogChange.decodeEntity(CatalogChange.encode(Self.full), position: 7) == Self.full)
    }

    @Test func foldingReadsAnUpsertsRecordsAndReferencesWithoutTheRest() throws {
        let records = try #require(
            try CatalogChange.entityRecords(
                encoded: CatalogChange.upsert([Self.full, Self.small]).encoded(), position: 3))
        #expect(records.map(\.ref) == [Self.full.ref, Self.small.ref])
        #expect(
            records.map { Array($0.record) } == [CatalogChange.encode(Self.full), CatalogChange.encode(Self.small)])
        #expect(
            try CatalogChange.entityRecords(encoded: CatalogChange.delete([Self.small.ref]).encoded(), position: 3)
                == nil)
    }

    @Test func aDamagedEntryIsAStorageErrorNamingItsPosition() {
        let bytes = CatalogChange.upsert([Self.full]).encoded()
        for damaged in [Array(bytes.dropLast()), bytes + [0], [0x01, 0x78, 0x00], [0x01, 0x75, 0xFF, 0xFF, 0xFF]] {
            #expect {
                _ = try CatalogChange(encoded: damaged, position: 42)
            } throws: { error in
                let error = error as? SearchError
                return error?.code == .storage && error?.message.contains("catalog log entry 42") == true
            }
        }
    }

    @Test func entriesALogWroteAsJSONAreStillRead() throws {
        let change = CatalogChange.upsert([Self.full])
        let json = Array(try JSONEncoder().encode(change))
        #expect(try CatalogChange(encoded: json, position: 1) == change)
        #expect(try CatalogChange.entityRecords(encoded: json, position: 1)?.map(\.ref) == [Self.full.ref])
        #expect(try CatalogChange.decodeEntity(Array(try JSONEncoder().encode(Self.full)), position: 1) == Self.full)
    }

    @Test func aLogWithJSONEntriesBeforeBinaryOnesRecoversAndFoldsThemAll() throws {
        // Without prints: the index keeps them normalized, so they would not come back equal.
        var full = Self.full
        full.prints = []
        let log = CatalogLogTests.TemporaryLog()
        let first = try CatalogLogTests.engine(log: log.open())
        // An entry as an older build wrote it, then binary ones on top.
        do {
            let c = try SQLiteConnection.durable(path: log.path)
            try c.run(
                "INSERT INTO catalog_log (kind, payload) VALUES ('change', ?1)",
                bind: [.blob(Array(try JSONEncoder().encode(CatalogChange.upsert([full, Self.small]))))])
        }
        let second = try CatalogLogTests.engine(log: log.open())
        #expect(second.snapshot.entity(full.ref) == full)
        try second.delete([Self.small.ref])
        try second.upsert([Entity(type: "a", id: "2", title: "Two")])
        #expect(try log.open().fold(through: second.snapshot.version) == 3)

        let third = try CatalogLogTests.engine(log: log.open())
        #expect(third.snapshot.version == first.snapshot.version + 3)
        #expect(third.snapshot.entity(full.ref) == full)
        #expect(third.snapshot.entity(Self.small.ref) == nil)
        #expect(third.snapshot.entity(EntityRef(type: "a", id: "2"))?.title == "Two")
        #expect(Set(third.snapshot.entities) == Set(second.snapshot.entities))
    }

    /// The fuzz target's seeds (Fuzz/Corpus/catalog-log-entry) and every one-byte truncation and
    /// flip of them pass the target's checks: readable entries read back the same, damaged ones
    /// are storage errors naming their position.
    @Test func theFuzzTargetsChecksHoldOnItsSeedsAndTheirDamagedCopies() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Corpus/catalog-log-entry").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        #expect(names.count >= 8)
        var readable = 0
        for name in names {
            let seed = Array(try Data(contentsOf: corpus.appendingPathComponent(name)))
            if (try? CatalogChange(encoded: seed, position: 1)) != nil { readable += 1 }
            #expect(CatalogLogEntryCheck.failure(decoding: seed) == nil, "\(name)")
            for cut in stride(from: 0, to: seed.count, by: max(1, seed.count / 64)) {
                #expect(CatalogLogEntryCheck.failure(decoding: Array(seed[..<cut])) == nil, "\(name) cut at \(cut)")
                var flipped = seed
                flipped[cut] ^= 0x5A
                #expect(CatalogLogEntryCheck.failure(decoding: flipped) == nil, "\(name) flipped at \(cut)")
            }
        }
        #expect(readable == names.count, "every seed is an entry the log could hold")
    }
}
