import ContinueService
import SearchAPI

/// The steps of `vi-continue demo`, each printed for a reader and checked.
struct DemoStory {
    let client: ServiceClient
    let setup: ServiceSetup

    /// What the camera "saw" in the labels steps: a jazz record sleeve or poster. (A label many
    /// entities share brings no related entities: the sheet mixes the types that carry it.)
    static let labels = ["jazz"]
    /// Labels the demo catalog knows nothing about.
    static let unknownLabels = ["lawnmower", "teapot"]
    /// Results per page in the session steps.
    static let pageSize: UInt32 = 6

    static func descriptor(_ texts: [String]) -> SearchAPI.Descriptor {
        SearchAPI.Descriptor(labels: texts.map { SearchAPI.Label(text: $0, confidence: 0.9) }, source: .camera)
    }

    /// Runs every step in order; a step that throws is recorded and the story goes on.
    func tell(address: String, into report: inout DemoReport) async {
        report.heading("The service")
        report.say("serving in this process on \(address)")
        report.say(setup.description)
        let health = try? await client.checkHealth().status
        report.check(health == .serving, "health check says SERVING")

        var tapped: QueryResult?
        var state: SearchState?
        await Self.step(&report, "The system sheet: labels from the camera") { tapped = try await labelsQuery(&$0) }
        await Self.step(&report, "The system sheet: a picture") { try await imageQuery(&$0) }
        await Self.step(&report, "A tap on the top result opens its screen") { try await tap(tapped, &$0) }
        await Self.step(&report, "\"More results\": the capture becomes a session") { state = try await capture(&$0) }
        await Self.step(&report, "A category, then a filter: the facet counts follow") {
            state = try await refine(state, &$0)
        }
        await Self.step(&report, "The next page") { try await nextPage(state, &$0) }
        await Self.step(&report, "Something the catalog does not know still opens a search") { try await unknown(&$0) }
    }

    private static func step(
        _ report: inout DemoReport, _ title: String, _ body: (inout DemoReport) async throws -> Void
    ) async {
        report.heading(title)
        do {
            try await body(&report)
        } catch {
            report.fail(error)
        }
    }

    // MARK: - Steps

    private func labelsQuery(_ report: inout DemoReport) async throws -> QueryResult? {
        report.say("Query(labels: \(Self.labels.joined(separator: ", ")), limit: 8)")
        let response = try await client.query(QueryRequest(descriptor: Self.descriptor(Self.labels), limit: 8))
        printResults(response.results, report)
        let types = Set(response.results.compactMap { $0.entity?.type })
        report.check(!response.results.isEmpty && response.results.count <= 8, "1 to 8 results (the sheet's limit)")
        report.check(types.count > 1, "mixed entity types (\(types.sorted().joined(separator: ", ")))")
        report.check(response.results.allSatisfy { !$0.deepLink.isEmpty }, "every result carries its deep link")
        return response.results.first
    }

    private func imageQuery(_ report: inout DemoReport) async throws {
        let image = try DemoImage.choose(directory: DemoData.directory(), setup: setup)
        report.say("picture: \(image.origin)")
        report.say("Query(pixel buffer \(image.buffer.width)×\(image.buffer.height) \(image.buffer.format), limit: 8)")
        let descriptor = SearchAPI.Descriptor(pixelBuffer: image.buffer, source: .camera)
        let response = try await client.query(QueryRequest(descriptor: descriptor, limit: 8))
        printResults(response.results, report)
        let imageHits = response.results.filter { $0.match == .image || $0.match == .textAndImage }
        report.check(!imageHits.isEmpty, "the picture matched by image (\(imageHits.count) image match(es))")
        if let expected = image.expected {
            let found = imageHits.first?.entity
            report.check(
                found?.type == expected.type && found?.id == expected.id,
                "the best image match is \(expected.type)/\(expected.id) (got \(found.map { "\($0.type)/\($0.id)" } ?? "none"))"
            )
        }
        let types = Set(response.results.compactMap { $0.entity?.type })
        report.check(
            types.count > 1, "mixed entity types, related ones included (\(types.sorted().joined(separator: ", ")))")
    }

    private func tap(_ result: QueryResult?, _ report: inout DemoReport) async throws {
        guard let result, let entity = result.entity else {
            report.check(false, "the labels step gave a result to tap")
            return
        }
        report.say("tapped: \(entity.type) “\(result.title)” → \(result.deepLink)")
        let fromURL = try await client.resolve(ResolveRequest(target: .url(result.deepLink)))
        let fromEntity = try await client.resolve(ResolveRequest(target: .entity(entity)))
        report.table(
            ["resolved from", "screen", "params", "canonical URL"],
            [
                ["deep link", fromURL.screen, params(fromURL), fromURL.canonicalURL],
                ["entity \(entity.type):\(entity.id)", fromEntity.screen, params(fromEntity), fromEntity.canonicalURL],
            ], maxWidth: 44)
        report.check(!fromURL.fallback, "the deep link matched a route (no fallback)")
        report.check(fromURL.entity == entity, "the screen shows the tapped \(entity.type) \(entity.id)")
        report.check(
            fromURL.screen == fromEntity.screen && fromURL.canonicalURL == fromEntity.canonicalURL,
            "the URL and the open-intent target land on the same screen (\(fromURL.screen))")
    }

    private func capture(_ report: inout DemoReport) async throws -> SearchState {
        report.say("Capture(labels: \(Self.labels.joined(separator: ", ")), page size: \(Self.pageSize))")
        let state = try await client.capture(
            CaptureRequest(descriptor: Self.descriptor(Self.labels), pageSize: Self.pageSize))
        report.say("session \(state.sessionID), query “\(state.queryText)”, \(state.totalHits) hits")
        report.say("chips: " + state.chips.map { ($0.selected ? "[x] " : "[ ] ") + $0.text }.joined(separator: "  "))
        printFacets(state.facets, report)
        printResults(state.results, report)
        report.check(state.sessionID.count == 32, "an unguessable 128-bit session id")
        for relaxation in state.relaxations { report.say("relaxed: \(relaxation.explanation)") }
        report.check(
            state.chips.map(\.text) == Self.labels && state.chips.allSatisfy(\.selected), "one chip per label, all on")
        report.check(
            state.facets.contains { $0.kind == .type } && state.facets.contains { $0.kind == .category },
            "type and category facets with counts")
        report.check(
            !state.results.isEmpty && state.results.count <= Int(Self.pageSize) && state.totalHits > Self.pageSize,
            "page 1 filled, more to come")
        return state
    }

    private func refine(_ captured: SearchState?, _ report: inout DemoReport) async throws -> SearchState? {
        guard let captured else {
            report.check(false, "the capture step gave a session")
            return nil
        }
        // The deepest, biggest category that does not cover everything: a real narrowing.
        let categories = captured.facets.first { $0.kind == .category }?.values ?? []
        guard
            let category =
                categories
                .filter({ $0.value.contains("/") && $0.count < captured.totalHits })
                .max(by: { $0.count < $1.count })
        else {
            report.check(false, "the category facet offers a narrower category")
            return nil
        }
        report.say("Search(categories: \(category.value))")
        let inCategory = try await client.search(
            SearchRequest(sessionID: captured.sessionID, categories: [category.value]))
        report.check(
            inCategory.totalHits == category.count,
            "\(inCategory.totalHits) hits, as the facet promised (\(category.count))")
        report.check(
            inCategory.results.allSatisfy {
                $0.category == category.value || $0.category.hasPrefix(category.value + "/")
            },
            "every result is in \(category.value)")

        // A string attribute with more than one value under the category, picked by count.
        let attribute = inCategory.facets.first { $0.kind == .string && $0.values.count > 1 }
        guard let attribute, let value = attribute.values.max(by: { $0.count < $1.count }) else {
            report.check(false, "an attribute facet to filter by")
            return inCategory
        }
        report.say("Search(categories: \(category.value), \(attribute.name) = \(value.value))")
        let filtered = try await client.search(
            SearchRequest(
                sessionID: captured.sessionID, categories: [category.value],
                filters: [
                    AttributeFilter(attribute: attribute.name, condition: .anyOf(ValueSet(values: [value.value])))
                ])
        )
        compareFacets(before: captured, middle: inCategory, after: filtered, report)
        printResults(filtered.results, report)
        report.check(
            filtered.totalHits == value.count, "\(filtered.totalHits) hits, as the facet promised (\(value.count))")
        let typeCounts = { (state: SearchState) in state.facets.first { $0.kind == .type }?.values.map(\.count) ?? [] }
        report.check(
            typeCounts(captured) != typeCounts(inCategory) && typeCounts(inCategory) != typeCounts(filtered),
            "the type facet's counts changed with each refinement")
        let selected = filtered.facets.first { $0.name == attribute.name }?.values.first { $0.selected }
        report.check(selected?.value == value.value, "the facet shows \(attribute.name) = \(value.value) as selected")
        // The category alone spans pages: the next step pages it.
        return inCategory
    }

    private func nextPage(_ refined: SearchState?, _ report: inout DemoReport) async throws {
        guard let refined else {
            report.check(false, "the refine step gave a state")
            return
        }
        // Page the category refinement when it spans pages; otherwise the whole capture.
        var request = SearchRequest(sessionID: refined.sessionID)
        var first = refined
        if refined.nextPageToken.isEmpty {
            report.say("the refinement fits on one page; paging the capture without it")
            first = try await client.search(request)
        } else {
            request = lastRefinement(of: refined)
        }
        request.pageToken = first.nextPageToken
        report.say("Search(\(describe(request)), page token \(DemoReport.cut(first.nextPageToken, to: 16)))")
        let second = try await client.search(request)
        report.say("page 1:")
        printResults(first.results, report)
        report.say("page 2:")
        printResults(second.results, report)
        let one = Set(first.results.compactMap(\.entity))
        let two = Set(second.results.compactMap(\.entity))
        report.check(!second.results.isEmpty, "page 2 has \(second.results.count) results")
        report.check(one.isDisjoint(with: two), "no result of page 1 appears again")
        report.check(second.totalHits == first.totalHits, "total hits unchanged (\(second.totalHits))")
    }

    private func unknown(_ report: inout DemoReport) async throws {
        report.say("Capture(labels: \(Self.unknownLabels.joined(separator: ", ")))")
        let state = try await client.capture(CaptureRequest(descriptor: Self.descriptor(Self.unknownLabels)))
        for relaxation in state.relaxations { report.say("relaxed: \(relaxation.explanation)") }
        if !state.browseCategories.isEmpty {
            report.table(
                ["browse category", "count"], state.browseCategories.prefix(8).map { [$0.value, "\($0.count)"] })
        }
        printResults(state.results, report)
        report.check(!state.relaxations.isEmpty, "the search says what it relaxed")
        report.check(
            !state.results.isEmpty || !state.browseCategories.isEmpty,
            "the search is filled in (\(state.results.count) results, \(state.browseCategories.count) categories)")
        report.check(state.chips.map(\.text) == Self.unknownLabels, "the captured labels are still shown as chips")
    }

    // MARK: - Printing

    /// The refinement the refine step ended with, rebuilt from the state's selections.
    private func lastRefinement(of state: SearchState) -> SearchRequest {
        var request = SearchRequest(sessionID: state.sessionID)
        for facet in state.facets {
            let selected = facet.values.filter(\.selected).map(\.value)
            if selected.isEmpty { continue }
            switch facet.kind {
            case .type: request.entityTypes = selected
            case .category: request.categories = selected
            case .string:
                request.filters.append(
                    AttributeFilter(attribute: facet.name, condition: .anyOf(ValueSet(values: selected))))
            default: break
            }
        }
        return request
    }

    private func describe(_ request: SearchRequest) -> String {
        var parts: [String] = []
        if !request.categories.isEmpty { parts.append("categories: " + request.categories.joined(separator: ", ")) }
        if !request.entityTypes.isEmpty { parts.append("types: " + request.entityTypes.joined(separator: ", ")) }
        for filter in request.filters { parts.append("\(filter.attribute) filter") }
        return parts.isEmpty ? "no refinement" : parts.joined(separator: "; ")
    }

    private func printResults(_ results: [QueryResult], _ report: DemoReport) {
        guard !results.isEmpty else {
            report.say("(no results)")
            return
        }
        report.table(
            ["#", "type", "title", "subtitle", "match"],
            results.enumerated().map { index, result in
                ["\(index + 1)", result.entity?.type ?? "?", result.title, result.subtitle, matchName(result)]
            })
    }

    private func printFacets(_ facets: [Facet], _ report: DemoReport) {
        report.table(
            ["facet", "values (count)"],
            facets.map { facet in
                [facet.name, facet.values.prefix(5).map { "\($0.value) \($0.count)" }.joined(separator: ", ")]
            }, maxWidth: 70)
    }

    private func compareFacets(before: SearchState, middle: SearchState, after: SearchState, _ report: DemoReport) {
        var rows: [[String]] = []
        for name in ["type", "category"] {
            let values = before.facets.first { $0.name == name }?.values ?? []
            for value in values.prefix(6) {
                let count = { (state: SearchState) in
                    state.facets.first { $0.name == name }?.values.first { $0.value == value.value }?.count ?? 0
                }
                rows.append(["\(name): \(value.value)", "\(count(before))", "\(count(middle))", "\(count(after))"])
            }
        }
        rows.append(["total hits", "\(before.totalHits)", "\(middle.totalHits)", "\(after.totalHits)"])
        report.table(["facet value", "captured", "+ category", "+ filter"], rows)
    }

    private func matchName(_ result: QueryResult) -> String {
        let kind =
            switch result.match {
            case .text: "text"
            case .image: "image"
            case .textAndImage: "text+image"
            case .related: "related"
            default: "-"
            }
        if let distance = result.distance { return kind + " d=\(Int((distance * 1000).rounded()))‰" }
        return kind
    }

    private func params(_ destination: Destination) -> String {
        destination.params.map { param in
            let value =
                switch param.value {
                case .intValue(let number): "\(number)"
                case .stringValue(let text): text
                case nil: ""
                }
            return "\(param.name)=\(value)"
        }.joined(separator: " ")
    }
}
