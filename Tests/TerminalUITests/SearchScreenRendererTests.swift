import SearchAPI
import Testing

@testable import TerminalUI

@Suite struct SearchScreenRendererTests {
    static func visible(_ state: SearchScreenState, _ size: TerminalSize) -> [String] {
        SearchScreenRenderer.lines(state, size: size).map(ANSI.strip)
    }

    @Test(
        "every line is exactly as wide as the terminal, at any size",
        arguments: [(120, 40), (80, 24), (50, 10), (200, 12), (49, 30), (20, 3)])
    func exactWidths(columns: Int, rows: Int) {
        var state = SearchScreenState(first: SearchStateFixture.state())
        let size = TerminalSize(rows: rows, columns: columns)
        for variant in 0..<3 {
            if variant == 1 { state.focus = .filters }
            if variant == 2 {
                _ = state.reduce(.opened(Destination(screen: "artist", canonicalURL: "music://artist/x"), title: "X"))
            }
            let lines = Self.visible(state, size)
            #expect(lines.count == rows)
            for line in lines { #expect(line.count == columns, "\(line)") }
        }
    }

    @Test("the screen shows results with type, title and subtitle, facet values with counts, chips and totals")
    func contents() {
        let state = SearchScreenState(first: SearchStateFixture.state())
        let lines = Self.visible(state, TerminalSize(rows: 30, columns: 120))
        let screen = lines.joined(separator: "\n")
        #expect(lines[0].contains("9 results") && lines[0].contains("sort: relevance"))
        #expect(lines[1].contains("● band") && lines[1].contains("● live"))
        #expect(
            lines.contains {
                $0.contains("▸ artist") && $0.contains("The Blue Foxes") && $0.contains("artist subtitle")
            })
        #expect(lines.contains { $0.contains("concert") && $0.contains("The Golden Comets live in Cologne") })
        for header in ["LABELS", "TYPE", "CATEGORY", "CITY", "YEAR"] { #expect(screen.contains(header)) }
        #expect(lines.contains { $0.contains("[ ] Vienna") && $0.hasSuffix(" 5 ") })
        #expect(lines[lines.count - 2].contains("Showing 3 of 9 · m loads more"))
        #expect(lines[lines.count - 1].contains("q quit"))
    }

    @Test("a refinement shows as ticked values and a Filters line; sort and loading show too")
    func refinedScreen() {
        var state = SearchScreenState(first: SearchStateFixture.state())
        state.refinement.values["city"] = ["Vienna"]
        state.refinement.sort = .attribute("year", descending: true)
        var server = SearchStateFixture.state()
        server.facets[2].values[0].selected = true
        state.server = server
        state.isLoading = true
        let lines = Self.visible(state, TerminalSize(rows: 30, columns: 100))
        #expect(lines[2].contains("Filters: city Vienna"))
        #expect(lines[0].contains("sort: year ↓"))
        #expect(lines.contains { $0.contains("[x] Vienna") })
        #expect(lines[lines.count - 2].contains("Searching…"))
    }

    @Test("an empty search shows what was relaxed and the categories to browse, never a blank pane")
    func neverBlank() {
        var server = SearchStateFixture.state(results: [], token: "", total: 0)
        server.relaxations = [Relaxation(kind: .browse, subject: "teapot", explanation: "Nothing matches “teapot”.")]
        server.browseCategories = [FacetValue(value: "Music", count: 296), FacetValue(value: "Concerts", count: 110)]
        let lines = Self.visible(SearchScreenState(first: server), TerminalSize(rows: 24, columns: 80))
        #expect(lines[2].contains("Nothing matches “teapot”."))
        #expect(lines.contains { $0.contains("Browse the catalog instead:") })
        #expect(lines.contains { $0.contains("Music (296)") })
    }

    @Test("an opened result shows its screen, params and canonical URL in a box")
    func overlay() {
        var state = SearchScreenState(first: SearchStateFixture.state())
        let destination = Destination(
            screen: "artist", params: [Param(name: "id", kind: .slug, value: .stringValue("the-blue-foxes"))],
            entity: EntityRef(type: "artist", id: "the-blue-foxes"), canonicalURL: "music://artist/the-blue-foxes",
            route: "artist")
        _ = state.reduce(.opened(destination, title: "The Blue Foxes"))
        let screen = Self.visible(state, TerminalSize(rows: 30, columns: 100)).joined(separator: "\n")
        for text in [
            "Open “The Blue Foxes”", "screen  artist", "param   id = the-blue-foxes",
            "URL     music://artist/the-blue-foxes",
            "Esc to go back",
        ] {
            #expect(screen.contains(text), "\(text)")
        }
    }

    @Test("the result list scrolls to keep the cursor on screen")
    func scrolling() {
        let many = (0..<60).map { SearchStateFixture.result("album", "a\($0)", "Album \($0)") }
        var state = SearchScreenState(first: SearchStateFixture.state(results: many))
        state.resultCursor = 45
        let lines = Self.visible(state, TerminalSize(rows: 20, columns: 80))
        #expect(lines.contains { $0.contains("▸ album") && $0.contains("Album 45") })
        #expect(!lines.contains { $0.contains("Album 0 ") })
    }

    @Test("the frame repaints each line in place and clears its rest")
    func frame() {
        let state = SearchScreenState(first: SearchStateFixture.state())
        let frame = SearchScreenRenderer.frame(state, size: TerminalSize(rows: 12, columns: 60))
        #expect(frame.hasPrefix(ANSI.moveTo(row: 1, column: 1)))
        #expect(frame.contains(ANSI.moveTo(row: 12, column: 1)))
        #expect(!frame.contains(ANSI.moveTo(row: 13, column: 1)))
        #expect(frame.ranges(of: ANSI.clearToEndOfLine).count == 12)
    }

    @Test("fit cuts with an ellipsis and pads to the width")
    func fitting() {
        #expect(SearchScreenRenderer.fit("abcdef", 4) == "abc…")
        #expect(SearchScreenRenderer.fit("ab", 4) == "ab  ")
        #expect(SearchScreenRenderer.fit("a\tb", 3) == "a b")
        #expect(SearchScreenRenderer.fit("x", 0) == "")
    }
}
