public import SearchAPI

/// Everything the interactive search screen shows, and the refinement it asks the server for.
///
/// A value: ``reduce(_:)`` turns an ``Action`` (a key, a server answer) into the next state and
/// the ``Effect``s the program must carry out (a Search or Resolve call, quitting). Nothing here
/// talks to a terminal or a network, so every behaviour is testable as plain values.
public struct SearchScreenState: Hashable, Sendable {
    /// Which pane the arrow keys move in.
    public enum Focus: Hashable, Sendable {
        case results, filters
    }

    /// The order asked for.
    public enum SortChoice: Hashable, Sendable {
        case relevance
        case title
        case attribute(String, descending: Bool)
    }

    /// What the person has switched on and off; sent whole with every Search.
    public struct Refinement: Hashable, Sendable {
        public var disabledLabels: Set<String> = []
        public var entityTypes: [String] = []
        public var categories: [String] = []
        /// String attribute → the values any of which must hold.
        public var values: [String: [String]] = [:]
        /// Numeric attribute → the bucket (`lo..hi`) chosen, one per attribute.
        public var ranges: [String: String] = [:]
        public var sort: SortChoice = .relevance

        public init() {}

        /// Whether nothing is refined (the sort aside).
        public var isEmpty: Bool {
            disabledLabels.isEmpty && entityTypes.isEmpty && categories.isEmpty && values.isEmpty && ranges.isEmpty
        }
    }

    /// A result the person opened, and where it leads.
    public struct Opened: Hashable, Sendable {
        public var title: String
        public var destination: Destination
    }

    /// The last state the server sent (facets, chips, totals, the next page token).
    public var server: SearchState
    /// Every result loaded so far, page after page.
    public var results: [QueryResult]
    public var refinement = Refinement()
    public var focus = Focus.results
    public var resultCursor = 0
    public var filterCursor = 0
    /// Whether a Search is on its way.
    public var isLoading = false
    /// The number of the latest request; answers to older ones are dropped.
    public var generation = 0
    /// A line for the person: an error, or "that is all".
    public var message: String?
    /// The destination overlay, while shown.
    public var opened: Opened?
    /// Results per page asked for; 0 means the session's own.
    public var pageSize: UInt32 = 0

    /// Starts from the first state of a session (from Capture or Search).
    public init(first: SearchState, pageSize: UInt32 = 0) {
        server = first
        results = first.results
        self.pageSize = pageSize
        refinement.disabledLabels = Set(first.chips.filter { !$0.selected }.map(\.text))
    }

    /// The rows of the filter pane that can be toggled, in screen order.
    public var filterRows: [FilterRow] {
        var rows = server.chips.map { FilterRow.chip($0.text, selected: !refinement.disabledLabels.contains($0.text)) }
        for facet in server.facets {
            for value in facet.values {
                rows.append(
                    .value(
                        facet: facet.name, kind: facet.kind, value: value.value, count: value.count,
                        selected: value.selected))
            }
        }
        return rows
    }

    /// The Search call for the current refinement.
    public func request(pageToken: String = "") -> SearchRequest {
        var request = SearchRequest(
            sessionID: server.sessionID, disabledLabels: refinement.disabledLabels.sorted(),
            entityTypes: refinement.entityTypes, categories: refinement.categories, pageSize: pageSize,
            pageToken: pageToken)
        for (attribute, values) in refinement.values.sorted(by: { $0.key < $1.key }) {
            request.filters.append(AttributeFilter(attribute: attribute, condition: .anyOf(ValueSet(values: values))))
        }
        for (attribute, bucket) in refinement.ranges.sorted(by: { $0.key < $1.key }) {
            guard let range = Self.range(bucket) else { continue }
            request.filters.append(AttributeFilter(attribute: attribute, condition: .range(range)))
        }
        switch refinement.sort {
        case .relevance: break
        case .title: request.sort = Sort(key: .title)
        case .attribute(let name, let descending):
            request.sort = Sort(key: .attribute, attribute: name, descending: descending)
        }
        return request
    }

    /// The sort orders on offer: relevance, title, then each numeric facet up and down.
    public var sortChoices: [SortChoice] {
        var choices: [SortChoice] = [.relevance, .title]
        for facet in server.facets where facet.kind == .number {
            choices.append(.attribute(facet.name, descending: false))
            choices.append(.attribute(facet.name, descending: true))
        }
        if case .attribute = refinement.sort, !choices.contains(refinement.sort) { choices.append(refinement.sort) }
        return choices
    }

    /// A number bucket label `lo..hi` as a range.
    static func range(_ bucket: String) -> NumberRange? {
        let parts = bucket.split(separator: "..", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]) else { return nil }
        return NumberRange(min: low, max: high)
    }
}

/// One toggleable row of the filter pane.
public enum FilterRow: Hashable, Sendable {
    /// A label chip from the capture.
    case chip(String, selected: Bool)
    /// A facet value with its count.
    case value(facet: String, kind: FacetKind, value: String, count: UInt64, selected: Bool)
}
