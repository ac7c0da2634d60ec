import Testing

@testable import SearchSession

/// A search orders only the hits its page needs: every page must be the slice of the full ranking.
@Suite struct PartialOrderTests {
    static let catalog: SearchEngine = {
        // Enough hits for the partial ordering to kick in (more than four times a page).
        let entities = (0..<200).map { i in
            Entity(
                type: ["album", "artist", "track"][i % 3], id: "e\(i)",
                title: "Item \(i) " + (i % 7 == 0 ? "blue" : "red"),
                category: i % 2 == 0 ? "Music/Jazz" : "Music/Rock", tags: i % 5 == 0 ? ["blue"] : ["jazz"],
                attributes: ["year": .number(Double(1950 + i % 60))])
        }
        return SearchEngine(entities: entities)
    }()

    static func session(_ labels: [String], pageSize: Int) -> SessionRecord {
        SessionRecord(
            id: "s", labels: labels.map { Label($0) }, prints: [], source: .camera, locale: "", pageSize: pageSize,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
    }

    @Test(
        "pages are slices of the fully ordered hits",
        arguments: [[], ["item"], ["blue"], ["item", "jazz"]], [1, 3, 20])
    func pagesAreSlicesOfTheFullOrder(labels: [String], pageSize: Int) throws {
        let engine = Self.catalog
        let session = Self.session(labels, pageSize: pageSize)
        let full = engine.evaluate(engine.snapshot, session: session, request: SearchRequest(sessionID: "s"))
        #expect(full.hits.count == full.total)
        var walked = [EntityRef]()
        var token = ""
        repeat {
            let state = try engine.search(session: session, request: SearchRequest(sessionID: "s", pageToken: token))
            #expect(state.totalHits == full.total)
            walked += state.results.map(\.entity)
            token = state.nextPageToken
        } while !token.isEmpty
        #expect(walked == full.hits.map { engine.snapshot.entities[Int($0.doc)].ref })
    }
}
