/// Facet values as the evaluation cache keeps them: a value the facet numbering names by number
/// (a type, category or string value) as that number, any other's text in one byte arena with
/// its end offset, and every value's count, instead of a `FacetValue` each.
///
/// A Capture's facets can list a hundred values for each of forty attributes, and the cache
/// keeps hundreds of evaluations: as `FacetValue`s that was 32 bytes a value plus a heap object
/// for each text past 15 bytes (category paths, streets, authors), most of the cache's memory.
/// Packed, a value's reference and count take the bits the entry's largest of each needs
/// (``PackedColumn``; at most 17 each for 35,000 labels and 100,000 documents, where two `Int32`s
/// took eight bytes: an entry of sparse-100k 10 KB → 5–7 KB), its text's bytes more for a bucket
/// label or a number counted by its text; it is unpacked when a page is cut, its text read from
/// ``FacetLabels``.
struct PackedFacetValues: Sendable {
    private let text: [UInt8]
    /// Per value, at ``referenceWidth`` bits: a value kept by its number `n` in the labels it was
    /// packed with as `2n`, a text as `2e + 1` where `e` is where it ends in ``text`` (it starts
    /// where the previous text ended). Even and odd, so small numbers and offsets stay narrow.
    private let references: [UInt8]
    private let referenceWidth: Int
    /// Per value, its count, at ``countWidth`` bits.
    private let counts: [UInt8]
    private let countWidth: Int
    /// The positions of the selected values (few: what the user picked).
    private let selected: [Int32]
    let count: Int

    /// Packs `values` by their texts (the browse state's categories; facets go through
    /// ``PackedFacets``, which names values by number).
    init(_ values: [FacetValue]) {
        self.init(runs: [(values, nil)])
    }

    /// Packs the values of every run, each by number where its `labels` name them, in order:
    /// the values of run `k` take the positions after those of the runs before it.
    init(runs: [(values: [FacetValue], labels: NumberedLabels?)]) {
        let total = runs.reduce(0) { $0 + $1.values.count }
        var text = [UInt8]()
        text.reserveCapacity(runs.reduce(0) { $0 + Self.textBytes(of: $1.values, labels: $1.labels) })
        var references = [UInt32]()
        var counts = [UInt32]()
        var selected = [Int32]()
        references.reserveCapacity(total)
        counts.reserveCapacity(total)
        for (values, labels) in runs {
            let labelCount = labels?.count ?? 0
            for value in values {
                if Self.isNumbered(value, labelCount: labelCount) {
                    references.append(UInt32(value.labelNumber) << 1)
                } else {
                    text.append(contentsOf: value.value.utf8)
                    // A cache entry's text is a few kilobytes: far below 2^31.
                    references.append(UInt32(text.count) << 1 | 1)
                }
                // Counts are live documents of one snapshot: far below 2^32.
                counts.append(UInt32(clamping: value.count))
                if value.selected { selected.append(Int32(counts.count - 1)) }
            }
        }
        self.text = text
        (referenceWidth, self.references) = PackedColumn.pack(references)
        (countWidth, self.counts) = PackedColumn.pack(counts)
        self.selected = selected
        count = total
    }

    /// Whether `value` is kept as its number in `labels`, the labels its number was given in
    /// (see ``SearchEngine/Evaluation/facetLabels``). The texts are not compared: reading each
    /// label to compare it cost 8 % of a Capture's server time on listings-100k (each read
    /// counts a reference to a string every thread shares).
    /// `labelCount` is the labels' count (0 for none), asked once per run rather than per value.
    private static func isNumbered(_ value: FacetValue, labelCount: Int) -> Bool {
        value.labelNumber >= 0 && Int(value.labelNumber) < labelCount
    }

    /// The text bytes `values` keep when packed with `labels`.
    static func textBytes(of values: [FacetValue], labels: NumberedLabels?) -> Int {
        let labelCount = labels?.count ?? 0
        return values.reduce(0) { $0 + (isNumbered($1, labelCount: labelCount) ? 0 : $1.value.utf8.count) }
    }

    /// The values at `positions`, as they were packed (with the same `labels`).
    func values(_ positions: Range<Int>, labels: NumberedLabels? = nil) -> [FacetValue] {
        references.withUnsafeBufferPointer { referenceBytes in
            counts.withUnsafeBufferPointer { countBytes in
                let references = PackedColumn(bytes: referenceBytes, width: referenceWidth, count: count)!
                let counts = PackedColumn(bytes: countBytes, width: countWidth, count: count)!
                var out = [FacetValue]()
                out.reserveCapacity(positions.count)
                // The labels' case taken apart once, not for each value it names.
                var names: [String]? = nil
                var valueLabels: ValueLabels? = nil
                switch labels {
                case .names(let labels): names = labels
                case .values(let labels): valueLabels = labels
                case nil: break
                }
                var selectedIndex = selected.partitionPoint { Int($0) >= positions.lowerBound }
                // Where the range's first text starts: where the last text before it ended.
                var textStart = 0
                for position in (0..<positions.lowerBound).reversed() where references[position] & 1 == 1 {
                    textStart = Int(references[position] >> 1)
                    break
                }
                for position in positions {
                    let isSelected = selectedIndex < selected.count && Int(selected[selectedIndex]) == position
                    if isSelected { selectedIndex += 1 }
                    let reference = references[position]
                    let label: String
                    let number: Int32
                    if reference & 1 == 0 {
                        number = Int32(reference >> 1)
                        label = names?[Int(number)] ?? valueLabels![Int(number)]
                    } else {
                        let end = Int(reference >> 1)
                        label = String(decoding: text[textStart..<end], as: UTF8.self)
                        textStart = end
                        number = -1
                    }
                    out.append(
                        FacetValue(
                            value: label, count: Int(counts[position]), selected: isSelected, labelNumber: number))
                }
                return out
            }
        }
    }

    /// Every value.
    var all: [FacetValue] { values(0..<count) }

    /// The bytes the arrays hold, by their lengths (they are made to size): their capacities
    /// are what the allocator handed out, which moved the same entry's bytes between runs, and
    /// with them how many entries the evaluation cache holds.
    var bytes: Int {
        text.count + references.count + counts.count + selected.count * 4
    }
}

/// The labels a snapshot's facet numbering numbers (its ``FacetNumbering``'s types, categories
/// and string values), which packed facet values name by number.
///
/// The arrays are the numbering's own (shared, not copied): a cache entry that outlives its
/// snapshot's numbering keeps them, and the segment its value labels are read from (its
/// mapping, until the entry goes).
struct FacetLabels: Sendable {
    var types: [String] = []
    var categories = ValueLabels()
    var values = ValueLabels()
    /// Attribute names, which name attribute facets, and their numbers.
    var attributes: [String] = []
    var attributeNumbers: [String: Int32] = [:]

    init(
        types: [String] = [], categories: [String] = [], values: [String] = [], attributes: [String] = []
    ) {
        self.types = types
        self.categories = ValueLabels(categories)
        self.values = ValueLabels(values)
        self.attributes = attributes
        for (number, name) in attributes.enumerated() { attributeNumbers[name] = Int32(number) }
    }

    init(_ numbering: FacetNumbering) {
        types = numbering.typeNames
        categories = numbering.categoryNames
        values = numbering.valueLabels
        attributes = numbering.attributeNames
        attributeNumbers = numbering.attributeNumbers
    }

    /// The labels a facet of `kind` numbers its values in; `nil` for buckets, which have none.
    func labels(of kind: FacetKind) -> NumberedLabels? {
        switch kind {
        case .type: .names(types)
        case .category: .values(categories)
        case .string: .values(values)
        case .number: nil
        }
    }
}

/// The labels one kind of facet numbers its values in: types (a few) as Strings, categories
/// (tens of thousands on some catalogs) and string values as ``ValueLabels``.
enum NumberedLabels: Sendable {
    case names([String])
    case values(ValueLabels)

    var count: Int {
        switch self {
        case .names(let names): names.count
        case .values(let values): values.count
        }
    }
}

/// Facets packed for the evaluation cache: their names and kinds, and their values in one
/// ``PackedFacetValues``; the names of the facets left out (``SearchState/moreFacets``) as
/// attribute numbers too (as strings, 1.6 MiB of a recipes-100k cache the budget did not count).
///
/// A Capture on a catalog of forty attributes has about thirty facets: each header is sixteen
/// bytes, its name an attribute's number where ``FacetLabels`` has it (48 bytes a header were a
/// fifth of the cache on sparse-100k).
struct PackedFacets: Sendable {
    private struct Header: Sendable {
        /// The attribute number of the facet's name (0 or more), or its place in ``otherNames``,
        /// bits inverted (below 0: "type", "category", a name the labels do not have).
        var name: Int32
        var kind: FacetKind
        var moreValues: Int32
        /// Where its values end in ``values``; they start where the previous header's end.
        var valuesEnd: Int32
    }

    private var headers: [Header] = []
    /// Each left-out facet's name, numbered as a header's is.
    private var moreFacetNames: [Int32] = []
    private var otherNames: [String] = []
    private var values: PackedFacetValues
    private let labels: FacetLabels

    /// Packs `facets`, whose values are numbered in `labels` (see ``FacetValue/labelNumber``),
    /// and the names of the facets left out.
    init(_ facets: [Facet], moreFacets: [String] = [], labels: FacetLabels = FacetLabels()) {
        self.labels = labels
        values = PackedFacetValues(runs: facets.map { ($0.values, labels.labels(of: $0.kind)) })
        headers.reserveCapacity(facets.count)
        var valuesEnd = 0
        for facet in facets {
            valuesEnd += facet.values.count
            // A cache entry holds a few hundred values and far fewer left out than 2^31.
            headers.append(
                Header(
                    name: number(facet.name), kind: facet.kind, moreValues: Int32(clamping: facet.moreValues),
                    valuesEnd: Int32(valuesEnd)))
        }
        moreFacetNames.reserveCapacity(moreFacets.count)
        for name in moreFacets { moreFacetNames.append(number(name)) }
    }

    /// The number of a facet's name: its attribute's, or its place in ``otherNames``, inverted.
    private mutating func number(_ name: String) -> Int32 {
        if let number = labels.attributeNumbers[name] { return number }
        otherNames.append(name)
        return ~Int32(otherNames.count - 1)
    }

    private func name(_ number: Int32) -> String {
        number >= 0 ? labels.attributes[Int(number)] : otherNames[Int(~number)]
    }

    /// The facets as they were packed.
    var facets: [Facet] {
        var start = 0
        return headers.map { header in
            let end = Int(header.valuesEnd)
            defer { start = end }
            return Facet(
                name: name(header.name), kind: header.kind,
                values: values.values(start..<end, labels: labels.labels(of: header.kind)),
                moreValues: Int(header.moreValues))
        }
    }

    /// The names of the facets left out, as they were packed.
    var moreFacets: [String] { moreFacetNames.map(name) }

    /// The bytes held, names included (not the labels: the snapshot's numbering holds them).
    var bytes: Int {
        values.bytes + headers.count * MemoryLayout<Header>.stride + moreFacetNames.count * 4
            + otherNames.count * 16
            + otherNames.reduce(0) { $0 + ($1.utf8.count > 15 ? $1.utf8.count + 32 : 0) }
    }
}
