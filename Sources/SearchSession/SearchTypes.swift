/// The system-sheet query.
public struct QueryRequest: Hashable, Sendable {
    /// The default number of results.
    public static let defaultLimit = 10
    /// The most results a query returns.
    public static let maximumLimit = 20

    /// What was captured.
    public var descriptor: Descriptor
    /// At most this many results; 0 means ``defaultLimit``, values above ``maximumLimit`` are capped.
    public var limit: Int
    /// The largest print distance (`1 − cosine`) an image match may have; `nil` means the model's
    /// default.
    public var maxDistance: Float?

    /// Creates a query.
    public init(descriptor: Descriptor, limit: Int = 0, maxDistance: Float? = nil) {
        self.descriptor = descriptor
        self.limit = limit
        self.maxDistance = maxDistance
    }
}

/// How a result was matched.
public enum MatchKind: String, Hashable, Sendable {
    /// Its text matched the labels or query.
    case text
    /// Its print was within the distance threshold.
    case image
    /// Both.
    case textAndImage
    /// It is related to a result that matched.
    case related
}

/// One result, ready to display and to open.
public struct QueryResult: Hashable, Sendable {
    /// Which entity.
    public var entity: EntityRef
    /// Title in the requested locale.
    public var title: String
    /// Subtitle in the requested locale.
    public var subtitle: String
    /// Set when the response holds several results.
    public var thumbnailURL: String
    /// Set when the response holds exactly one result.
    public var imageURL: String
    /// The catalog's own deep link (the service may replace it with the router's).
    public var deepLink: String
    /// The fused score; higher is better, comparable within one response.
    public var score: Float
    /// How it matched.
    public var match: MatchKind
    /// The print distance when it matched by image.
    public var distance: Float?
    /// The labels or query terms it matched, as shown.
    public var matchedTerms: [String]
    /// For related results: the result that brought it in.
    public var relatedTo: EntityRef?
    /// The category path.
    public var category: String
}

/// A filter on one attribute.
public struct AttributeFilter: Hashable, Sendable {
    /// What the value must satisfy.
    public enum Condition: Hashable, Sendable {
        /// Equal to any of these (numbers compared as numbers).
        case anyOf([String])
        /// Within this inclusive range; a `nil` bound is open.
        case range(min: Double?, max: Double?)
    }

    /// The attribute name.
    public var attribute: String
    /// The condition.
    public var condition: Condition

    /// Creates a filter.
    public init(attribute: String, condition: Condition) {
        self.attribute = attribute
        self.condition = condition
    }

    /// Creates an equality filter.
    public static func anyOf(_ attribute: String, _ values: [String]) -> AttributeFilter {
        AttributeFilter(attribute: attribute, condition: .anyOf(values))
    }

    /// Creates a range filter.
    public static func range(_ attribute: String, min: Double? = nil, max: Double? = nil) -> AttributeFilter {
        AttributeFilter(attribute: attribute, condition: .range(min: min, max: max))
    }

    /// How the filter reads, e.g. `year 1990–1999`.
    public var label: String {
        switch condition {
        case .anyOf(let values): return "\(attribute) \(values.joined(separator: " or "))"
        case .range(let lo?, let hi?): return "\(attribute) \(formatNumber(lo))–\(formatNumber(hi))"
        case .range(let lo?, nil): return "\(attribute) ≥ \(formatNumber(lo))"
        case .range(nil, let hi?): return "\(attribute) ≤ \(formatNumber(hi))"
        case .range(nil, nil): return attribute
        }
    }
}

/// A boolean combination of attribute filters.
public indirect enum FilterExpression: Hashable, Sendable {
    /// A leaf.
    case filter(AttributeFilter)
    /// All children must hold (true when empty).
    case all([FilterExpression])
    /// At least one child must hold (false when empty).
    case any([FilterExpression])
    /// The child must not hold.
    case not(FilterExpression)
}

/// What a search sorts by.
public struct Sort: Hashable, Sendable {
    /// Sort keys.
    public enum Key: String, Hashable, Sendable {
        /// Best first.
        case relevance
        /// An attribute's value; entities without it come last.
        case attribute
        /// Title in the session's locale, alphabetically (folded).
        case title
    }

    /// The key.
    public var key: Key
    /// For ``Key/attribute``: the attribute.
    public var attribute: String
    /// Largest first (ignored for relevance).
    public var descending: Bool

    /// Creates a sort.
    public init(key: Key = .relevance, attribute: String = "", descending: Bool = false) {
        self.key = key
        self.attribute = attribute
        self.descending = descending
    }

    /// Best first.
    public static let relevance = Sort()
}

/// Refines a session; each request carries the whole refinement.
public struct SearchRequest: Hashable, Sendable {
    /// The id returned by Capture.
    public var sessionID: String
    /// Free text replacing the captured query text; `nil` keeps it.
    public var query: String?
    /// Label chips switched off, by text.
    public var disabledLabels: [String]
    /// Only these entity types; empty means all.
    public var entityTypes: [String]
    /// Only these category paths or their descendants; empty means all.
    public var categories: [String]
    /// Attribute filters; all must hold.
    public var filters: [AttributeFilter]
    /// An expression that must also hold.
    public var filterExpression: FilterExpression?
    /// The order.
    public var sort: Sort
    /// Results per page; 0 means the session's page size; capped at 100.
    public var pageSize: Int
    /// From a previous state; empty for the first page.
    public var pageToken: String
    /// The most values each facet lists; 0 means ``SearchEngine/defaultFacetValues``. Selected
    /// values are listed beyond it; every value is counted either way.
    public var maxFacetValues: Int
    /// The most attribute facets listed, those whose values count the most hits first; 0 means
    /// ``SearchEngine/defaultFacets``. Facets with a selected value and ``includedFacets`` take
    /// their places first and are listed even beyond it; ``SearchState/moreFacets`` names the rest.
    public var maxFacets: Int
    /// Attributes whose facets are listed whenever the hits have their values, whatever
    /// ``maxFacets`` leaves out (one the user opened from ``SearchState/moreFacets``).
    public var includedFacets: [String]

    /// Creates a request.
    public init(
        sessionID: String, query: String? = nil, disabledLabels: [String] = [], entityTypes: [String] = [],
        categories: [String] = [], filters: [AttributeFilter] = [], filterExpression: FilterExpression? = nil,
        sort: Sort = .relevance, pageSize: Int = 0, pageToken: String = "", maxFacetValues: Int = 0,
        maxFacets: Int = 0, includedFacets: [String] = []
    ) {
        self.sessionID = sessionID
        self.query = query
        self.disabledLabels = disabledLabels
        self.entityTypes = entityTypes
        self.categories = categories
        self.filters = filters
        self.filterExpression = filterExpression
        self.sort = sort
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.maxFacetValues = maxFacetValues
        self.maxFacets = maxFacets
        self.includedFacets = includedFacets
    }
}

/// A label chip under the search field.
public struct Chip: Hashable, Sendable {
    /// The chip's text.
    public var text: String
    /// Whether it takes part in the query.
    public var selected: Bool
    /// The label confidence it came from.
    public var confidence: Float
}

/// Kinds of facet.
public enum FacetKind: String, Hashable, Sendable {
    /// Entity types.
    case type
    /// Category paths (every level).
    case category
    /// A string attribute.
    case string
    /// A numeric attribute, in buckets written `min..max`.
    case number
}

/// A facet value and how many hits have it.
public struct FacetValue: Hashable, Sendable {
    /// The value as text.
    public var value: String
    /// Hits with this value, counting the other facets' selections but not this facet's own.
    public var count: Int
    /// Whether it is selected.
    public var selected: Bool
    /// The value's number in the facet numbering it was counted in (a type, category or string
    /// value number: see ``FacetLabels``), or -1 for a label made from a number. The evaluation
    /// cache keeps the number instead of the text; it is not part of the value's identity.
    var labelNumber: Int32

    init(value: String, count: Int, selected: Bool, labelNumber: Int32 = -1) {
        self.value = value
        self.count = count
        self.selected = selected
        self.labelNumber = labelNumber
    }

    public static func == (a: FacetValue, b: FacetValue) -> Bool {
        a.value == b.value && a.count == b.count && a.selected == b.selected
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
        hasher.combine(count)
        hasher.combine(selected)
    }
}

/// One facet: a dimension with value counts, largest count first.
public struct Facet: Hashable, Sendable {
    /// `type`, `category` or an attribute name.
    public var name: String
    /// What kind of values it has.
    public var kind: FacetKind
    /// The values, largest count first (ties by value): at most the request's
    /// ``SearchRequest/maxFacetValues``, plus selected values beyond those.
    public var values: [FacetValue]
    /// How many values with hits are not listed.
    public var moreValues = 0
}

/// A filter in force.
public struct AppliedFilter: Hashable, Sendable {
    /// The filter.
    public var filter: AttributeFilter
    /// How it reads.
    public var label: String
}

/// Kinds of relaxation.
public enum RelaxationKind: String, Hashable, Sendable {
    /// The weakest label was dropped.
    case droppedLabel
    /// A category was widened to its parent.
    case widenedCategory
    /// Filters were removed.
    case droppedFilter
    /// Nothing matched at all: the state offers categories to browse.
    case browse
}

/// One relaxation of a strict query that found nothing: what the search left out, as data (the
/// service or the client words it for people).
public struct Relaxation: Hashable, Sendable {
    /// What was relaxed.
    public var kind: RelaxationKind
    /// What exactly: the dropped label, the widened category, the dropped filters (as their
    /// labels, comma-separated), or for ``RelaxationKind/browse`` what nothing matched.
    public var subject: String
    /// For a dropped label, the selected labels before (space-separated); empty otherwise.
    public var searched: String
    /// What the search shows instead: the labels left, or the widened category's parent (empty
    /// for all categories); empty for dropped filters and browse.
    public var shown: String

    /// Creates a relaxation.
    public init(kind: RelaxationKind, subject: String, searched: String = "", shown: String = "") {
        self.kind = kind
        self.subject = subject
        self.searched = searched
        self.shown = shown
    }
}

/// The full in-app search screen, filled in.
public struct SearchState: Hashable, Sendable {
    /// The session.
    public var sessionID: String
    /// The query text as shown in the search field.
    public var queryText: String
    /// The label chips, in order.
    public var chips: [Chip]
    /// Facets: type, category, then attributes by name.
    public var facets: [Facet]
    /// The attributes the hits have values of whose facets ``SearchRequest/maxFacets`` left
    /// out, by name: a request can include them.
    public var moreFacets: [String]
    /// The filters in force.
    public var appliedFilters: [AppliedFilter]
    /// This page's results.
    public var results: [QueryResult]
    /// For the next page; empty on the last page.
    public var nextPageToken: String
    /// All hits of this refinement, across pages.
    public var totalHits: Int
    /// How the strict query was relaxed; empty when it was not.
    public var relaxations: [Relaxation]
    /// When the session expires, in milliseconds since the Unix epoch.
    public var expiresAtUnixMs: Int64
    /// The sort in force.
    public var sort: Sort
    /// Categories to browse when nothing matched at all.
    public var browseCategories: [FacetValue]
    /// The session's source.
    public var source: Source
    /// The session's locale.
    public var locale: String
    /// The catalog version the results come from.
    public var catalogVersion: UInt64
}

/// The outcome of a catalog update.
public struct CatalogUpdate: Hashable, Sendable {
    /// Why one entity of a batch was rejected.
    public struct EntityError: Hashable, Sendable {
        /// Its position in the batch.
        public var index: Int
        /// The entity.
        public var entity: EntityRef
        /// The reason.
        public var message: String
    }

    /// Entities inserted, replaced or removed.
    public var applied: Int
    /// The catalog version now visible.
    public var catalogVersion: UInt64
    /// Rejected entities.
    public var errors: [EntityError]
}
