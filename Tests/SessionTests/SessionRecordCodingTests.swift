import Foundation
import Testing

@testable import SearchSession

/// The binary form stored sessions take (SQLite and Redis), and the JSON of earlier versions.
@Suite struct SessionRecordCodingTests {
    static let id = "0123456789abcdef0123456789abcdef"

    static let plain = SessionRecord(
        id: id, labels: [Label("guitar", confidence: 0.5)], prints: [], source: .camera, locale: "en", pageSize: 20,
        createdAtUnixMs: 1000, expiresAtUnixMs: 2000)

    static let full = SessionRecord(
        id: id, labels: [Label("Gitarre für Kinder", confidence: 0.9), Label("", confidence: 0)],
        prints: [FeaturePrint(model: "vi-print-1", values: [0.25, -1, .greatestFiniteMagnitude, 0])],
        source: .screenshot, locale: "de-DE", queryText: "Gitarre", pageSize: 100, createdAtUnixMs: -5,
        expiresAtUnixMs: .max, maxDistance: 0.75,
        pictureMatch: PictureMatch(entity: EntityRef(type: "product", id: "p/7 ä"), distance: 0.125))

    @Test func aRecordHasTheseBytes() {
        let expected: [UInt8] =
            [0x01, 32] + Array(Self.id.utf8)
            + [1, 6] + Array("guitar".utf8) + [0x00, 0x00, 0x00, 0x3F]  // one label, confidence 0.5
            + [0]  // no prints
            + [6] + Array("camera".utf8) + [2] + Array("en".utf8) + [0]  // source, locale, no query text
            + [20, 0, 0, 0]  // page size
            + [0xE8, 0x03, 0, 0, 0, 0, 0, 0] + [0xD0, 0x07, 0, 0, 0, 0, 0, 0]  // created, expires
            + [0, 0]  // no max distance, no picture match
        #expect(Self.plain.encoded() == expected)
    }

    @Test(arguments: [plain, full])
    func aRecordReadsBackAsItWasStored(_ record: SessionRecord) throws {
        #expect(try SessionRecord(encoded: record.encoded(), id: record.id) == record)
    }

    @Test(arguments: [plain, full])
    func aRecordAnEarlierVersionStoredAsJSONStillReads(_ record: SessionRecord) throws {
        let json = Array(try JSONEncoder().encode(record))
        #expect(json.first == UInt8(ascii: "{"))
        #expect(try SessionRecord(encoded: json, id: record.id) == record)
    }

    @Test func bytesCutShortOrWithMoreAfterTheEndAreAStorageErrorNamingTheSession() {
        let bytes = Self.full.encoded()
        for length in [1, 10, bytes.count / 2, bytes.count - 1] {
            #expect {
                try SessionRecord(encoded: Array(bytes.prefix(length)), id: Self.id)
            } throws: { error in
                let error = error as? SearchError
                return error?.code == .storage && error?.message.contains("session \(Self.id)") == true
            }
        }
        #expect(throws: SearchError.self) { try SessionRecord(encoded: bytes + [0], id: Self.id) }
        #expect(throws: SearchError.self) { try SessionRecord(encoded: Array("not a record".utf8), id: Self.id) }
        var badFlag = Self.plain.encoded()
        badFlag[badFlag.count - 1] = 7
        #expect(throws: SearchError.self) { try SessionRecord(encoded: badFlag, id: Self.id) }
    }
}
