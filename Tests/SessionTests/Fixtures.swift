@testable import SearchSession

/// A small music catalog: album → artist → concerts, with client prints of model "m3".
enum Fixtures {
    static let jsonl = """
        {"synonyms":["guitar","axe"]}
        {"type":"album","id":"abbey-road","title":"Abbey Road","subtitle":"The Beatles","category":"Music/Rock","tags":["rock","vinyl"],"attributes":{"year":1969,"price":24.5},"image":"i/abbey.jpg","thumbnail":"t/abbey.jpg","print":{"model":"m3","values":[1,0,0]},"related":[{"type":"artist","id":"the-beatles"}],"localized":{"de":{"title":"Abbey Road (Deutsch)","subtitle":"Die Beatles"}},"link":"music://album/abbey-road"}
        {"type":"album","id":"let-it-be","title":"Let It Be","subtitle":"The Beatles","category":"Music/Rock","tags":["rock"],"attributes":{"year":1970,"price":19},"print":{"model":"m3","values":[0.9,0.1,0]},"related":[{"type":"artist","id":"the-beatles"}]}
        {"type":"artist","id":"the-beatles","title":"The Beatles","subtitle":"Band from Liverpool","category":"Music/Rock","tags":["band"],"attributes":{"city":"Liverpool"},"related":[{"type":"concert","id":"beatles-berlin"},{"type":"concert","id":"beatles-1966"}]}
        {"type":"concert","id":"beatles-berlin","title":"Beatles Tribute Night","subtitle":"Berlin","category":"Music/Live","attributes":{"city":"Berlin","date":"2030-05-01","price":45}}
        {"type":"concert","id":"beatles-1966","title":"Beatles at Budokan","subtitle":"Tokyo","category":"Music/Live","attributes":{"city":"Tokyo","date":"1966-06-30","price":10}}
        {"type":"track","id":"guitar-solo","title":"Guitar Solo","subtitle":"Instrumental","category":"Music/Jazz","tags":["guitar"],"attributes":{"year":1985}}
        {"type":"playlist","id":"axe-heroes","title":"Axe Heroes","subtitle":"Best guitar riffs","category":"Music/Rock","attributes":{"year":2001}}
        {"type":"album","id":"kind-of-blue","title":"Kind of Blue","subtitle":"Miles Davis","category":"Music/Jazz","tags":["jazz","trumpet"],"attributes":{"year":1959,"price":15},"print":{"model":"m3","values":[0,0,1]}}
        """

    static func engine() -> SearchEngine {
        let file = CatalogLoader.parse(Array(jsonl.utf8))
        precondition(file.errors.isEmpty, "\(file.errors)")
        return SearchEngine(catalog: file, nowMs: { 1_900_000_000_000 })  // 2030-03-17
    }
}
