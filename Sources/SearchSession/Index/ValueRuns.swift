/// Value numbers as runs of consecutive numbers of one facet: how a flat count array is read
/// facet by facet (see ``ShowableFacetValues``).
///
/// A segment numbers its string values attribute by attribute (see ``SegmentBuilder``), and a
/// snapshot's numbering takes its first segment's numbers, so most of a catalog's values are one
/// run per attribute; values that later writes bring are appended, a few runs more each.
struct ValueRuns: Sendable, Equatable {
    /// Per run: its first value number, then the count of values.
    private var starts: [Int32] = [0]
    /// Per run: its facet.
    private var facets: [Int32] = []

    /// No values.
    init() {}

    /// The runs of values whose facets are `facetOf`, in order.
    init(_ facetOf: some Sequence<Int32>) {
        for facet in facetOf { append(facet) }
    }

    /// One run of `count` values of facet 0.
    init(oneFacet count: Int) {
        if count > 0 {
            starts.append(Int32(count))
            facets.append(0)
        }
    }

    /// Numbers one more value, of `facet`.
    mutating func append(_ facet: Int32) {
        if facets.last == facet {
            starts[starts.count - 1] += 1
        } else {
            facets.append(facet)
            starts.append(starts[starts.count - 1] + 1)
        }
    }

    /// How many runs.
    var count: Int { facets.count }

    /// How many values.
    var valueCount: Int { Int(starts[starts.count - 1]) }

    /// Run `run`'s facet and value numbers.
    subscript(run: Int) -> (facet: Int, values: Range<Int>) {
        (Int(facets[run]), Int(starts[run])..<Int(starts[run + 1]))
    }
}
