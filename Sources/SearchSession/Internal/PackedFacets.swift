/// Facet values as the evaluation cache keeps them: every value's text in one byte arena with
/// its end offset, and its count, instead of a `FacetValue` each.
///
/// A Capture's facets can list a hundred values for each of forty attributes, and the cache
/// keeps hundreds of evaluations: as `FacetValue`s that was 32 bytes a value plus a heap object
/// for each text past 15 bytes (category paths, streets, authors), most of the cache's memory.
/// Packed, a value costs its text's bytes and eight more; it is unpacked when a page is cut.
struct PackedFacetValues: Sendable {
    private var text: [UInt8] = []
    /// Per value, where its text ends in ``text``.
    private var textEnds: [UInt32] = []
    /// Per value, its count.
    private var counts: [Int32] = []
    /// The positions of the selected values (few: what the user picked).
    private var selected: [Int32] = []

    init() {}

    init(_ values: [FacetValue]) {
        reserve(values: values.count, textBytes: values.reduce(0) { $0 + $1.value.utf8.count })
        append(values)
    }

    /// Makes room for `values` more values with `textBytes` of text in all: kept entries are
    /// made to size, not grown by doubling.
    mutating func reserve(values: Int, textBytes: Int) {
        text.reserveCapacity(text.count + textBytes)
        textEnds.reserveCapacity(textEnds.count + values)
        counts.reserveCapacity(counts.count + values)
    }

    var count: Int { counts.count }

    /// Appends `values` and returns their positions.
    @discardableResult
    mutating func append(_ values: [FacetValue]) -> Range<Int> {
        let start = counts.count
        for value in values {
            text.append(contentsOf: value.value.utf8)
            textEnds.append(UInt32(text.count))
            // Counts are live documents of one snapshot: far below 2^31.
            counts.append(Int32(clamping: value.count))
            if value.selected { selected.append(Int32(counts.count - 1)) }
        }
        return start..<counts.count
    }

    /// The values at `positions`, as they were appended.
    func values(_ positions: Range<Int>) -> [FacetValue] {
        var out = [FacetValue]()
        out.reserveCapacity(positions.count)
        var selectedIndex = selected.partitionPoint { Int($0) >= positions.lowerBound }
        for position in positions {
            let start = position == 0 ? 0 : Int(textEnds[position - 1])
            let end = Int(textEnds[position])
            let isSelected = selectedIndex < selected.count && Int(selected[selectedIndex]) == position
            if isSelected { selectedIndex += 1 }
            out.append(
                FacetValue(
                    value: String(decoding: text[start..<end], as: UTF8.self), count: Int(counts[position]),
                    selected: isSelected))
        }
        return out
    }

    /// Every value.
    var all: [FacetValue] { values(0..<count) }

    /// The bytes the arrays hold.
    var bytes: Int {
        text.capacity + textEnds.capacity * 4 + counts.capacity * 4 + selected.capacity * 4
    }
}

/// Facets packed for the evaluation cache: their names and kinds, and their values in one
/// ``PackedFacetValues``.
struct PackedFacets: Sendable {
    private struct Header: Sendable {
        var name: String
        var kind: FacetKind
        var moreValues: Int
        var values: Range<Int>
    }

    private var headers: [Header] = []
    private var values = PackedFacetValues()

    init(_ facets: [Facet]) {
        headers.reserveCapacity(facets.count)
        var valueCount = 0
        var textBytes = 0
        for facet in facets {
            valueCount += facet.values.count
            for value in facet.values { textBytes += value.value.utf8.count }
        }
        values.reserve(values: valueCount, textBytes: textBytes)
        for facet in facets {
            headers.append(
                Header(
                    name: facet.name, kind: facet.kind, moreValues: facet.moreValues,
                    values: values.append(facet.values)))
        }
    }

    /// The facets as they were packed.
    var facets: [Facet] {
        headers.map { Facet(name: $0.name, kind: $0.kind, values: values.values($0.values), moreValues: $0.moreValues) }
    }

    /// The bytes held, names included.
    var bytes: Int {
        values.bytes + headers.capacity * MemoryLayout<Header>.stride
            + headers.reduce(0) { $0 + ($1.name.utf8.count > 15 ? $1.name.utf8.count + 32 : 0) }
    }
}
