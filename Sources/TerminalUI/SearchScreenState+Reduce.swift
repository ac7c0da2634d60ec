import SearchAPI

extension SearchScreenState {
    /// Rows one Page Up / Page Down moves.
    static let pageJump = 10

    /// Applies an action and returns the effects to carry out.
    public mutating func reduce(_ action: Action) -> [Effect] {
        switch action {
        case .key(let key):
            return handle(key)
        case .loaded(let state, let number, let append):
            guard number == generation else { return [] }  // an answer overtaken by a newer request
            isLoading = false
            message = nil
            server = state
            results = append ? results + state.results : state.results
            clampCursors()
            return []
        case .opened(let destination, let title):
            opened = Opened(title: title, destination: destination)
            return []
        case .failed(let text, let number):
            if let number {
                guard number == generation else { return [] }
                isLoading = false
            }
            message = "error: " + text
            return []
        }
    }

    private mutating func handle(_ key: Key) -> [Effect] {
        if key == .control("c") || key == .character("q") { return [.quit] }
        if opened != nil {
            // The destination overlay is modal: any of these closes it, other keys are ignored.
            if [.escape, .enter, .backspace, .character("o"), .character(" ")].contains(key) { opened = nil }
            return []
        }
        switch key {
        case .tab, .backTab:
            focus = focus == .results ? .filters : .results
        case .left, .character("h"):
            focus = .results
        case .right, .character("l"):
            focus = .filters
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"):
            if focus == .results, resultCursor == results.count - 1, !server.nextPageToken.isEmpty {
                return loadMore()
            }
            move(by: 1)
        case .pageUp: move(by: -Self.pageJump)
        case .pageDown: move(by: Self.pageJump)
        case .home, .character("g"): move(by: -Int.max / 2)
        case .end, .character("G"): move(by: Int.max / 2)
        case .character("m"), .character("n"): return loadMore()
        case .character("s"): return cycleSort()
        case .character("c"):
            guard !refinement.isEmpty else { return [] }
            refinement = Refinement()
            return refresh()
        case .enter, .character("o"), .character(" "):
            return focus == .results ? open() : toggleFilter()
        default: break
        }
        return []
    }

    private mutating func move(by delta: Int) {
        switch focus {
        case .results: resultCursor = Self.clamp(resultCursor + delta, count: results.count)
        case .filters: filterCursor = Self.clamp(filterCursor + delta, count: filterRows.count)
        }
    }

    private mutating func clampCursors() {
        resultCursor = Self.clamp(resultCursor, count: results.count)
        filterCursor = Self.clamp(filterCursor, count: filterRows.count)
    }

    private static func clamp(_ value: Int, count: Int) -> Int {
        max(0, min(value, count - 1))
    }

    /// Asks for page 1 of the current refinement.
    private mutating func refresh() -> [Effect] {
        generation += 1
        isLoading = true
        resultCursor = 0
        return [.search(request(), generation: generation, append: false)]
    }

    private mutating func loadMore() -> [Effect] {
        guard !isLoading else { return [] }
        guard !server.nextPageToken.isEmpty else {
            message = "That is all: \(results.count) of \(server.totalHits) shown."
            return []
        }
        generation += 1
        isLoading = true
        return [.search(request(pageToken: server.nextPageToken), generation: generation, append: true)]
    }

    private mutating func cycleSort() -> [Effect] {
        let choices = sortChoices
        let index = choices.firstIndex(of: refinement.sort) ?? 0
        refinement.sort = choices[(index + 1) % choices.count]
        return refresh()
    }

    private mutating func open() -> [Effect] {
        guard results.indices.contains(resultCursor) else { return [] }
        let result = results[resultCursor]
        if !result.deepLink.isEmpty {
            return [.resolve(ResolveRequest(target: .url(result.deepLink)), title: result.title)]
        }
        guard let entity = result.entity else { return [] }
        return [.resolve(ResolveRequest(target: .entity(entity)), title: result.title)]
    }

    private mutating func toggleFilter() -> [Effect] {
        let rows = filterRows
        guard rows.indices.contains(filterCursor) else { return [] }
        switch rows[filterCursor] {
        case .chip(let text, _):
            if refinement.disabledLabels.remove(text) == nil { refinement.disabledLabels.insert(text) }
        case .value(let facet, let kind, let value, _, _):
            switch kind {
            case .type: Self.toggle(value, in: &refinement.entityTypes)
            case .category: Self.toggle(value, in: &refinement.categories)
            case .number:
                refinement.ranges[facet] = refinement.ranges[facet] == value ? nil : value
            default:
                var values = refinement.values[facet] ?? []
                Self.toggle(value, in: &values)
                refinement.values[facet] = values.isEmpty ? nil : values
            }
        }
        return refresh()
    }

    private static func toggle(_ value: String, in list: inout [String]) {
        if let index = list.firstIndex(of: value) {
            list.remove(at: index)
        } else {
            list.append(value)
        }
    }
}
