import Foundation
import Testing

@testable import SearchSession

@Suite struct CatalogLoaderTests {
    static let sample = """
        {"type":"album","id":"abbey-road","title":"Abbey Road","subtitle":"The Beatles","category":"Music/Rock","tags":["classic","vinyl"],"attributes":{"year":1969,"label":"Apple"},"image":"https://x/a.jpg","thumbnail":"https://x/a_t.jpg","print":{"model":"m1","values":[1,0,0]},"related":[{"type":"artist","id":"the-beatles"}],"localized":{"de":{"title":"Abbey Road (DE)","subtitle":"Die Beatles"}},"link":"music://album/abbey-road"}
        {"synonyms":["guitar","axe"]}

        {"type":"artist","id":"the-beatles","title":"The Beatles"}
        not json
        {"type":"artist","title":"No Id"}
        {"type":"album","id":"x","title":"X","attributes":{"year":true}}
        {"type":"artist","id":"the-beatles","title":"Again"}
        [1,2]
        {"type":"album","id":"y","title":"Y","colour":"red"}
        {"type":"album","id":"z","title":"Z","print":{"model":"m1","values":["a"]}}
        {"synonyms":["lonely"]}
        """

    @Test func goodLinesLoadAndBadLinesAreReportedWithTheirNumbers() throws {
        let file = CatalogLoader.parse(Array(Self.sample.utf8))
        #expect(
            file.entities.map(\.ref) == [
                EntityRef(type: "album", id: "abbey-road"), EntityRef(type: "artist", id: "the-beatles"),
            ])
        #expect(file.synonyms == [["guitar", "axe"]])
        #expect(file.errors.map(\.line) == [5, 6, 7, 8, 9, 10, 11, 12])
        #expect(file.errors[0].reason.hasPrefix("not valid JSON"))
        #expect(file.errors[1].reason == "missing \"id\"")
        #expect(file.errors[2].reason == "attribute \"year\" must be a string or a number, not a boolean")
        #expect(file.errors[3].reason == "duplicate entity artist/the-beatles (first on line 4)")
        #expect(file.errors[4].reason == "expected a JSON object, found an array")
        #expect(file.errors[5].reason == "unknown key \"colour\"")
        #expect(file.errors[6].reason == "print values must be numbers")
        #expect(file.errors[7].reason == "\"synonyms\" needs at least two terms")
    }

    @Test func everyFieldIsRead() throws {
        let file = CatalogLoader.parse(Array(Self.sample.utf8))
        let album = try #require(file.entities.first)
        #expect(album.title == "Abbey Road")
        #expect(album.subtitle == "The Beatles")
        #expect(album.category == "Music/Rock")
        #expect(album.tags == ["classic", "vinyl"])
        #expect(album.attributes == ["year": .number(1969), "label": .string("Apple")])
        #expect(album.imageURL == "https://x/a.jpg")
        #expect(album.thumbnailURL == "https://x/a_t.jpg")
        #expect(album.prints == [FeaturePrint(model: "m1", values: [1, 0, 0])])
        #expect(album.related == [EntityRef(type: "artist", id: "the-beatles")])
        #expect(album.link == "music://album/abbey-road")
        #expect(album.display(locale: "de-DE") == LocalizedText(title: "Abbey Road (DE)", subtitle: "Die Beatles"))
        #expect(album.display(locale: "fr") == LocalizedText(title: "Abbey Road", subtitle: "The Beatles"))
    }

    @Test func imageFilesNeedACatalogDirectory() {
        let file = CatalogLoader.parse(Array(#"{"type":"a","id":"b","title":"c","image_file":"x.png"}"#.utf8))
        #expect(file.errors.first?.reason == "\"image_file\" needs a catalog file to be relative to")
    }

    @Test func aMissingImageFileRejectsItsLineOnly() {
        let text =
            #"{"type":"a","id":"b","title":"c","image_file":"missing.png"}"# + "\n"
            + #"{"type":"a","id":"c","title":"d"}"#
        let file = CatalogLoader.parse(Array(text.utf8), baseDirectory: "/nonexistent")
        #expect(file.errors.map(\.line) == [1])
        #expect(file.entities.count == 1)
    }

    @Test(arguments: [
        (#"{"type":"a","id":"b","title":"Caf\u00e9 \ud83c\udfb8 \"q\" \\ \/ \n"}"#, "Café 🎸 \"q\" \\ / \n"),
        (#"{"type":"a","id":"b","title":"plain","tags":[],"attributes":{"x":-1.5e2}}"#, "plain"),
    ])
    func jsonStringsAndNumbersAreDecoded(line: String, title: String) throws {
        let file = CatalogLoader.parse(Array(line.utf8))
        #expect(file.errors.isEmpty)
        #expect(file.entities.first?.title == title)
    }

    @Test(arguments: [
        #"{"type":"a","id":"b","title":"x",}"#, #"{"type":"a" "id":"b"}"#, #"{"type":"\ud800","id":"b","title":"x"}"#,
        #"{"type":"a","id":"b","title":"x"} trailing"#, #"{"type":"a","id":"b","title":"x","attributes":{"n":01}}"#,
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100), #"{"type":"a","id":"b","title":"\x"}"#,
    ])
    func malformedJSONIsRejectedWithAReason(line: String) {
        let file = CatalogLoader.parse(Array(line.utf8))
        #expect(file.entities.isEmpty)
        #expect(file.errors.count == 1)
        #expect(file.errors.first?.line == 1)
    }

    @Test func invalidUTF8IsRejected() {
        let bytes = Array(#"{"type":"a","id":"b","title":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let file = CatalogLoader.parse(bytes)
        #expect(file.errors.first?.reason.contains("invalid UTF-8") == true)
    }

    @Test(arguments: [
        "Music/Rock", " Music / Rock/", "/Music", "Music//Rock", "Music/ ", "", "/", " ", "a\tb/c", "\tTabs/x\t",
        "Musique/Électro", "Café / Crème", "Books/Sci-Fi & Fantasy/Space Opera", "x/y/z/w",
    ])
    func categoryPathsAreNormalizedAsTrimmingEachSegmentWould(_ path: String) {
        let trimmedEachSegment = path.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "/")
        #expect(normalizeCategory(path) == trimmedEachSegment)
    }
}
