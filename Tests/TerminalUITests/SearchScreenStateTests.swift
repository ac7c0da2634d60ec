import SearchAPI
import Testing

@testable import TerminalUI

@Suite struct SearchScreenStateTests {
    typealias State = SearchScreenState

    /// Sends keys and returns every effect they produced.
    @discardableResult
    static func press(_ keys: Key..., on state: inout State) -> [State.Effect] {
        keys.flatMap { state.reduce(.key($0)) }
    }

    /// Moves the filter cursor onto the row for `value` and toggles it.
    static func toggle(_ value: String, on state: inout State) -> [State.Effect] {
        state.focus = .filters
        let index = state.filterRows.firstIndex { row in
            switch row {
            case .chip(let text, _): text == value
            case .value(_, _, let text, _, _): text == value
            }
        }
        state.filterCursor = index!
        return press(.character(" "), on: &state)
    }

    static func searchRequest(_ effects: [State.Effect]) -> (SearchRequest, Int, Bool)? {
        guard effects.count == 1, case .search(let request, let generation, let append) = effects[0] else { return nil }
        return (request, generation, append)
    }

    @Test("the filter pane lists the chips, then every facet value with its count")
    func filterRows() {
        let state = State(first: SearchStateFixture.state())
        #expect(state.filterRows.count == 2 + 2 + 2 + 2 + 2)
        #expect(state.filterRows[0] == .chip("band", selected: true))
        #expect(state.filterRows[2] == .value(facet: "type", kind: .type, value: "artist", count: 6, selected: false))
    }

    @Test("toggling a type, a category, a string value and a number bucket asks for page 1 with each refinement")
    func toggles() throws {
        var state = State(first: SearchStateFixture.state())
        var (request, generation, append) = try #require(Self.searchRequest(Self.toggle("album", on: &state)))
        #expect(request.entityTypes == ["album"] && generation == 1 && !append && request.pageToken.isEmpty)
        #expect(state.isLoading)

        (request, generation, _) = try #require(Self.searchRequest(Self.toggle("Music/Rock", on: &state)))
        #expect(request.categories == ["Music/Rock"] && request.entityTypes == ["album"] && generation == 2)

        (request, _, _) = try #require(Self.searchRequest(Self.toggle("Vienna", on: &state)))
        #expect(
            request.filters == [AttributeFilter(attribute: "city", condition: .anyOf(ValueSet(values: ["Vienna"])))])

        (request, _, _) = try #require(Self.searchRequest(Self.toggle("1990..1999", on: &state)))
        #expect(
            request.filters.last
                == AttributeFilter(attribute: "year", condition: .range(NumberRange(min: 1990, max: 1999))))

        // Toggling again takes each one back off.
        for value in ["album", "Music/Rock", "Vienna", "1990..1999"] { _ = Self.toggle(value, on: &state) }
        #expect(state.refinement.isEmpty)
        #expect(state.request() == SearchRequest(sessionID: state.server.sessionID))
    }

    @Test("switching a chip off sends it as a disabled label; c clears every refinement")
    func chipsAndClear() throws {
        var state = State(first: SearchStateFixture.state())
        let (request, _, _) = try #require(Self.searchRequest(Self.toggle("live", on: &state)))
        #expect(request.disabledLabels == ["live"])
        #expect(state.filterRows[1] == .chip("live", selected: false))
        _ = Self.toggle("Paris", on: &state)
        let effects = Self.press(.character("c"), on: &state)
        #expect(Self.searchRequest(effects)?.0 == SearchRequest(sessionID: state.server.sessionID))
        #expect(Self.press(.character("c"), on: &state).isEmpty, "nothing left to clear")
    }

    @Test("the answer to the latest request replaces the results; an overtaken answer is dropped")
    func staleAnswers() {
        var state = State(first: SearchStateFixture.state())
        _ = Self.toggle("album", on: &state)
        _ = Self.toggle("artist", on: &state)
        #expect(state.generation == 2)
        let old = SearchStateFixture.state(results: [SearchStateFixture.result("album", "x", "Old")])
        #expect(state.reduce(.loaded(old, generation: 1, append: false)).isEmpty)
        #expect(state.results.count == 3 && state.isLoading)
        let new = SearchStateFixture.state(results: [SearchStateFixture.result("artist", "y", "New")], token: "")
        _ = state.reduce(.loaded(new, generation: 2, append: false))
        #expect(state.results.map(\.title) == ["New"])
        #expect(!state.isLoading)
        #expect(state.server.nextPageToken.isEmpty)
    }

    @Test("m loads the next page with the same refinement and appends it; at the end it says so")
    func loadMore() throws {
        var state = State(first: SearchStateFixture.state(), pageSize: 3)
        _ = Self.toggle("Vienna", on: &state)
        _ = state.reduce(.loaded(SearchStateFixture.state(), generation: state.generation, append: false))
        let (request, generation, append) = try #require(Self.searchRequest(Self.press(.character("m"), on: &state)))
        #expect(append && request.pageToken == "token-1" && request.pageSize == 3)
        #expect(request.filters.map(\.attribute) == ["city"])
        #expect(Self.press(.character("m"), on: &state).isEmpty, "no second request while one is on its way")

        let page2 = SearchStateFixture.state(
            results: [SearchStateFixture.result("album", "p2", "Page Two")], token: "")
        _ = state.reduce(.loaded(page2, generation: generation, append: true))
        #expect(state.results.map(\.title).last == "Page Two" && state.results.count == 4)
        #expect(Self.press(.character("m"), on: &state).isEmpty)
        #expect(state.message == "That is all: 4 of 9 shown.")
    }

    @Test("↓ on the last loaded result loads the next page")
    func downAtTheEndLoadsMore() throws {
        var state = State(first: SearchStateFixture.state())
        #expect(Self.press(.down, .down, on: &state).isEmpty)
        #expect(state.resultCursor == 2)
        let (request, _, append) = try #require(Self.searchRequest(Self.press(.down, on: &state)))
        #expect(append && request.pageToken == "token-1")
    }

    @Test("s cycles relevance, title, then each number facet up and down")
    func sortCycle() throws {
        var state = State(first: SearchStateFixture.state())
        var sorts: [Sort?] = []
        for _ in 0..<4 {
            let (request, generation, _) = try #require(Self.searchRequest(Self.press(.character("s"), on: &state)))
            sorts.append(request.sort)
            _ = state.reduce(.loaded(SearchStateFixture.state(), generation: generation, append: false))
        }
        #expect(
            sorts == [
                Sort(key: .title), Sort(key: .attribute, attribute: "year"),
                Sort(key: .attribute, attribute: "year", descending: true), nil,
            ])
    }

    @Test("Enter on a result resolves its deep link, or its entity without one; the overlay is modal")
    func openResults() throws {
        var state = State(first: SearchStateFixture.state())
        #expect(
            Self.press(.enter, on: &state) == [
                .resolve(ResolveRequest(target: .url("music://artist/the-blue-foxes")), title: "The Blue Foxes")
            ])
        state.resultCursor = 2
        #expect(
            Self.press(.character("o"), on: &state) == [
                .resolve(
                    ResolveRequest(target: .entity(EntityRef(type: "concert", id: "1018"))),
                    title: "The Golden Comets live in Cologne")
            ])
        _ = state.reduce(.opened(Destination(screen: "concert"), title: "Gig"))
        #expect(state.opened?.destination.screen == "concert")
        #expect(Self.press(.down, .character("m"), on: &state).isEmpty, "keys under the overlay do nothing")
        #expect(state.resultCursor == 2)
        _ = Self.press(.escape, on: &state)
        #expect(state.opened == nil)
    }

    @Test("q and Ctrl-C quit, even over the overlay")
    func quitting() {
        var state = State(first: SearchStateFixture.state())
        #expect(Self.press(.character("q"), on: &state) == [.quit])
        _ = state.reduce(.opened(Destination(screen: "album"), title: "A"))
        #expect(Self.press(.control("c"), on: &state) == [.quit])
    }

    @Test("cursors stay on the rows there are; Tab and the arrows switch panes")
    func cursors() {
        var state = State(first: SearchStateFixture.state(token: ""))
        Self.press(.up, .up, on: &state)
        #expect(state.resultCursor == 0)
        Self.press(.end, on: &state)
        #expect(state.resultCursor == 2)
        Self.press(.tab, on: &state)
        #expect(state.focus == .filters)
        Self.press(.pageDown, .pageDown, on: &state)
        #expect(state.filterCursor == state.filterRows.count - 1)
        Self.press(.left, on: &state)
        #expect(state.focus == .results)
        _ = state.reduce(
            .loaded(SearchStateFixture.state(results: []), generation: state.generation, append: false))
        #expect(state.resultCursor == 0)
    }

    @Test("a failed Search stops the spinner and shows the error; an overtaken failure is dropped")
    func failures() {
        var state = State(first: SearchStateFixture.state())
        _ = Self.toggle("album", on: &state)
        _ = state.reduce(.failed("late", generation: 0))
        #expect(state.message == nil && state.isLoading)
        _ = state.reduce(.failed("session expired", generation: state.generation))
        #expect(state.message == "error: session expired" && !state.isLoading)
    }
}
