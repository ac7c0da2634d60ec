/// The facet values of a snapshot numbered across its segments, with each segment's own numbers
/// mapped to them, so counting reads a document's local numbers and adds to flat arrays.
///
/// Numbers are given in the order values are met, segment by segment; facets are put in order
/// when they are shown. Numeric attributes (no string value in any segment) count in buckets laid
/// out over the snapshot's range (see ``NumberBuckets``).
struct FacetNumbering: Sendable {
    var typeNames: [String] = []
    /// Category paths by number (read in place from the first segment, see ``ValueLabels``).
    private(set) var categoryNames = ValueLabels()
    /// Each category's parent number, or -1.
    var categoryParent: [Int32] = []
    var attributeNames: [String] = []
    /// Per attribute: its bucket layout when it is numeric only.
    var buckets: [NumberBuckets?] = []
    /// Per attribute: where its bucket counts start in ``FacetCounts/buckets``.
    var bucketStart: [Int32] = []
    /// Per attribute: whether some value is a string (numbers then show as their text).
    var hasStrings: [Bool] = []
    /// Per string value: its text and its attribute's number.
    private(set) var valueLabels = ValueLabels()
    private(set) var valueAttribute: [Int32] = []
    /// The string values as runs of one attribute, for reading counts attribute by attribute.
    private(set) var valueRuns = ValueRuns()

    /// Per segment, its local numbers → snapshot numbers (see ``SegmentNumbers``).
    private(set) var segmentNumbers: [SegmentNumbers] = []

    private var typeNumbers: [String: Int32] = [:]
    private(set) var attributeNumbers: [String: Int32] = [:]
    /// The categories by path, over ``categoryNames``.
    private var categoryTable = LabelTable()
    /// The string values by attribute and text, over ``valueLabels``.
    private var valueTable = LabelTable()

    /// Each attribute's numeric range over the segments, for the bucket layouts.
    private var ranges: [(min: Double, max: Double, integral: Bool)?] = []

    /// Numbers the values of `segments`.
    init(segments: [Segment]) {
        add(segments)
    }

    /// This numbering with `segments` appended (an upsert's new segment): the numbers given so
    /// far stay, so the work is the new segments' dictionaries, not the catalog's.
    func extended(with segments: some Sequence<Segment>) -> FacetNumbering {
        var next = self
        next.add(segments)
        return next
    }

    /// This numbering with the segments at `run` replaced by `merged`, their merge (`nil`: the run
    /// is dropped, none of its documents being live), or `nil` if `merged` has a name this
    /// numbering never gave a number to. A merge rewrites the live documents of its sources, so
    /// every name it holds was numbered with them: the numbers and bucket layouts stay, and
    /// counts made in this numbering stay counts in the result.
    ///
    /// `replaced` are the segments at `run`: labels read in place from one of them are copied
    /// out, so the numbering does not keep a merged-away segment's mapping.
    func replacing(_ run: Range<Int>, of replaced: some Collection<Segment>, with merged: Segment?) -> FacetNumbering? {
        guard run.lowerBound >= 0, run.upperBound <= segmentNumbers.count, !run.isEmpty else { return nil }
        var next = self
        if replaced.contains(where: valueLabels.reads(from:)) { next.valueLabels = valueLabels.copiedOut() }
        if replaced.contains(where: categoryNames.reads(from:)) { next.categoryNames = categoryNames.copiedOut() }
        guard let merged else {
            next.segmentNumbers.removeSubrange(run)
            return next
        }
        func numbers(_ names: UnsafeBufferPointer<UInt32>, _ known: (String) -> Int32?) -> [Int32]? {
            var out = [Int32]()
            out.reserveCapacity(names.count)
            for name in names {
                guard let number = known(merged.name(name)) else { return nil }
                out.append(number)
            }
            return out
        }
        guard let types = numbers(merged.typeNames, { typeNumbers[$0] }),
            let categories = numbers(merged.categoryNames, category(named:)),
            let attributes = numbers(merged.attributeNames, { attributeNumbers[$0] })
        else { return nil }
        var values = [Int32]()
        values.reserveCapacity(merged.valueStrings.count)
        for (local, text) in merged.valueStrings.enumerated() {
            let attribute = attributes[Int(merged.valueAttribute[local])]
            guard let number = valueNumber(attribute: attribute, label: merged.name(text)) else { return nil }
            values.append(number)
        }
        next.segmentNumbers.replaceSubrange(
            run, with: [SegmentNumbers(types: types, categories: categories, attributes: attributes, values: values)])
        return next
    }

    private mutating func add(_ segments: some Sequence<Segment>) {
        for segment in segments {
            let types = segment.typeNames.map { number(&typeNumbers, &typeNames, segment.name($0)) }
            var categories = [Int32]()
            if categoryNames.count == 0 {
                // As for values below: the segment's categories take its own numbers (parents
                // before their children), their paths read from it.
                categoryNames.takeAllCategories(of: segment)
                categoryParent = segment.categoryParent.map { $0 == .max ? -1 : Int32($0) }
                categories = Array(0..<Int32(segment.categoryNames.count))
                categoryTable.rebuild(count: categoryNames.count) { [categoryNames] in
                    Self.hash(category: categoryNames[$0])
                }
            } else {
                for (local, name) in segment.categoryNames.enumerated() {
                    let path = segment.name(name)
                    if let known = category(named: path) {
                        categories.append(known)
                        continue
                    }
                    let parent = segment.categoryParent[local]
                    categoryParent.append(parent == .max ? -1 : categories[Int(parent)])
                    categories.append(newCategory(path))
                }
            }
            var attributes = [Int32]()
            for (local, name) in segment.attributeNames.enumerated() {
                let global = number(&attributeNumbers, &attributeNames, segment.name(name))
                if Int(global) == hasStrings.count {
                    hasStrings.append(false)
                    ranges.append(nil)
                }
                let kinds = segment.attributeKinds[local]
                if kinds & 2 != 0 { hasStrings[Int(global)] = true }
                if kinds & 1 != 0 {
                    let low = segment.attributeMinimum[local]
                    let high = segment.attributeMaximum[local]
                    let integral = kinds & 4 != 0
                    let old = ranges[Int(global)] ?? (low, high, integral)
                    ranges[Int(global)] = (min(old.min, low), max(old.max, high), old.integral && integral)
                }
                attributes.append(global)
            }
            var values = [Int32]()
            if valueLabels.count == 0 {
                // Nothing numbered yet: the segment's values take its own numbers (a segment
                // numbers each of its values once), their labels read from it.
                valueLabels.takeAllValues(of: segment)
                valueAttribute = segment.valueAttribute.map { attributes[Int($0)] }
                valueRuns = ValueRuns(valueAttribute)
                values = Array(0..<Int32(segment.valueStrings.count))
                valueTable.rebuild(count: valueLabels.count) { [valueLabels, valueAttribute] in
                    Self.hash(attribute: valueAttribute[$0], label: valueLabels[$0])
                }
            } else {
                values.reserveCapacity(segment.valueStrings.count)
                var reserved = false
                for (local, text) in segment.valueStrings.enumerated() {
                    let attribute = attributes[Int(segment.valueAttribute[local])]
                    let label = segment.name(text)
                    if let number = valueNumber(attribute: attribute, label: label) {
                        values.append(number)
                        continue
                    }
                    // At most the rest of this segment's values are new: room made to size, not
                    // grown by doubling, and only once one is new. Reserving shared arrays
                    // copies them, so a write that brings no new value (most upserts) copied
                    // every value's attribute and label ends for nothing: 7 MB on archive-1m.
                    if !reserved {
                        let rest = segment.valueStrings.count - local
                        valueLabels.reserveCapacity(adding: rest)
                        valueAttribute.reserveCapacity(valueAttribute.count + rest)
                        reserved = true
                    }
                    values.append(newValue(attribute: attribute, label: label))
                }
            }
            segmentNumbers.append(
                SegmentNumbers(types: types, categories: categories, attributes: attributes, values: values))
        }
        buckets = []
        bucketStart = []
        var start: Int32 = 0
        for (attribute, range) in ranges.enumerated() {
            bucketStart.append(start)
            if let range, !hasStrings[attribute] {
                let layout = NumberBuckets(min: range.min, max: range.max, integral: range.integral)
                buckets.append(layout)
                start += Int32(layout.count)
            } else {
                buckets.append(nil)
            }
        }
        bucketStart.append(start)
    }

    /// The number of string value `label` of attribute `attribute`, if numbered.
    private func valueNumber(attribute: Int32, label: String) -> Int32? {
        valueTable.number(hash: Self.hash(attribute: attribute, label: label)) { number in
            valueAttribute[number] == attribute && valueLabels.label(number, equals: label)
        }
    }

    /// Numbers a string value not numbered yet.
    private mutating func newValue(attribute: Int32, label: String) -> Int32 {
        let number = Int32(valueLabels.count)
        valueLabels.append(label)
        valueAttribute.append(attribute)
        valueRuns.append(attribute)
        valueTable.add(number, hash: Self.hash(attribute: attribute, label: label), count: valueLabels.count) {
            [valueLabels, valueAttribute] in Self.hash(attribute: valueAttribute[$0], label: valueLabels[$0])
        }
        return number
    }

    /// Numbers a category path not numbered yet (its parent's number appended already).
    private mutating func newCategory(_ path: String) -> Int32 {
        let number = Int32(categoryNames.count)
        categoryNames.append(path)
        categoryTable.add(number, hash: Self.hash(category: path), count: categoryNames.count) { [categoryNames] in
            Self.hash(category: categoryNames[$0])
        }
        return number
    }

    private static func hash(attribute: Int32, label: String) -> Int {
        var hasher = Hasher()
        hasher.combine(attribute)
        hasher.combine(label)
        return hasher.finalize()
    }

    private static func hash(category path: String) -> Int {
        var hasher = Hasher()
        hasher.combine(path)
        return hasher.finalize()
    }

    private func number(_ numbers: inout [String: Int32], _ names: inout [String], _ name: String) -> Int32 {
        if let known = numbers[name] { return known }
        let global = Int32(names.count)
        numbers[name] = global
        names.append(name)
        return global
    }

    /// Whether every attribute of `earlier` (a numbering this one extends) keeps its bucket
    /// layout, its buckets' place and its kind here: then counts made in `earlier` are counts in
    /// this numbering once padded (see ``FacetCounts/padded(to:)``).
    func keepsBucketLayouts(of earlier: FacetNumbering) -> Bool {
        earlier.attributeNames.indices.allSatisfy { attribute in
            buckets[attribute] == earlier.buckets[attribute] && bucketStart[attribute] == earlier.bucketStart[attribute]
                && hasStrings[attribute] == earlier.hasStrings[attribute]
        }
    }

    /// Whether `segment`'s string value ids are the numbers this numbering gives its values:
    /// so for its first segment (see ``ValueLabels``), until a merge takes that segment away.
    func keepsValueIDs(of segment: Segment) -> Bool { valueLabels.reads(from: segment) }

    /// The number of an attribute name, if the snapshot has it.
    func attribute(named name: String) -> Int32? { attributeNumbers[name] }

    /// The number of a category path, if the snapshot has it.
    func category(named name: String) -> Int32? {
        categoryTable.number(hash: Self.hash(category: name)) { categoryNames.label($0, equals: name) }
    }

    /// The number of a type, if the snapshot has it.
    func type(named name: String) -> Int32? { typeNumbers[name] }

    /// The facet label of a value of attribute `attribute`.
    func label(attribute: Int, _ value: AttributeValue) -> String {
        if let layout = buckets[attribute], case .number(let number) = value {
            return layout.label(layout.index(of: number))
        }
        return value.description
    }
}

/// Facet counts in a snapshot's numbering.
struct FacetCounts: Sendable, Equatable {
    var types: [Int32]
    var categories: [Int32]
    var values: CountColumn
    var buckets: [Int32]
    /// Numbers of attributes that also have strings, counted by their text.
    var textNumbers: [Int32: [String: Int32]] = [:]

    /// These counts less `other`'s (counts of a subset of the same documents).
    func subtracting(_ other: FacetCounts) -> FacetCounts { combined(with: other, sign: -1) }

    /// These counts and `other`'s (counts of other documents) together.
    func adding(_ other: FacetCounts) -> FacetCounts { combined(with: other, sign: 1) }

    private func combined(with other: FacetCounts, sign: Int32) -> FacetCounts {
        // A loop over raw buffers: zip and map cost several times more per value, and a wide
        // catalog has tens of thousands of values.
        func combine(
            _ a: some ContiguousCounts, _ b: some ContiguousCounts, into out: UnsafeMutableBufferPointer<Int32>
        ) {
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    for index in out.indices { out[index] = a[index] &+ sign &* b[index] }
                }
            }
        }
        func combine(_ a: CountColumn, _ b: CountColumn) -> CountColumn {
            CountColumn(count: min(a.count, b.count)) { combine(a, b, into: $0) }
        }
        func combine(_ a: [Int32], _ b: [Int32]) -> [Int32] {
            let count = min(a.count, b.count)
            return [Int32](unsafeUninitializedCapacity: count) { out, initialized in
                combine(a, b, into: UnsafeMutableBufferPointer(rebasing: out[0..<count]))
                initialized = count
            }
        }
        var textNumbers = self.textNumbers
        for (attribute, labels) in other.textNumbers {
            for (label, count) in labels { textNumbers[attribute, default: [:]][label, default: 0] += sign * count }
        }
        return FacetCounts(
            types: combine(types, other.types), categories: combine(categories, other.categories),
            values: combine(values, other.values), buckets: combine(buckets, other.buckets),
            textNumbers: Self.nonEmpty(textNumbers))
    }

    /// `textNumbers` without the labels no document has any more (counted out to 0), as counts
    /// made afresh have none.
    static func nonEmpty(_ textNumbers: [Int32: [String: Int32]]) -> [Int32: [String: Int32]] {
        textNumbers.compactMapValues { labels in
            let kept = labels.filter { $0.value != 0 }
            return kept.isEmpty ? nil : kept
        }
    }

    /// These counts in `numbering`, which extends theirs with layouts kept: the values it adds
    /// count 0.
    func padded(to numbering: FacetNumbering) -> FacetCounts {
        func pad(_ counts: [Int32], to count: Int) -> [Int32] {
            counts.count == count ? counts : counts + repeatElement(0, count: count - counts.count)
        }
        return FacetCounts(
            types: pad(types, to: numbering.typeNames.count),
            categories: pad(categories, to: numbering.categoryNames.count),
            values: values.padded(to: numbering.valueLabels.count),
            buckets: pad(buckets, to: Int(numbering.bucketStart.last ?? 0)),
            textNumbers: textNumbers)
    }

    /// Changes these counts by `changes` (counters of the same numbering), in place: making them
    /// anew from a tally wrote and read every count twice (a write into archive-1m: 12 MB, 4.8
    /// ms, where the 100 documents change a few thousand counters).
    mutating func apply(_ changes: [(counter: FacetCounter, change: Int32)]) {
        for (counter, change) in changes where change != 0 {
            switch counter {
            case .type(let slot): types[slot] += change
            case .category(let slot): categories[slot] += change
            case .value(let slot): values[slot] += change
            case .bucket(let slot): buckets[slot] += change
            case .textNumber(let attribute, let label):
                textNumbers[attribute, default: [:]][label, default: 0] += change
            }
        }
        textNumbers = Self.nonEmpty(textNumbers)
    }

    /// About how many bytes the counts hold.
    var bytes: Int {
        4 * (types.count + categories.count + values.count + buckets.count)
            + textNumbers.values.reduce(0) { $0 + 32 * $1.count }
    }
}

/// One segment's numbers mapped to its snapshot's, in memory of their own: counting loops read
/// them through raw buffers, without retaining arrays per document.
final class SegmentNumbers: @unchecked Sendable {
    // Written once in init, read-only after.
    let types: UnsafeMutableBufferPointer<Int32>
    let categories: UnsafeMutableBufferPointer<Int32>
    let attributes: UnsafeMutableBufferPointer<Int32>
    let values: UnsafeMutableBufferPointer<Int32>

    init(types: [Int32], categories: [Int32], attributes: [Int32], values: [Int32]) {
        func copy(_ array: [Int32]) -> UnsafeMutableBufferPointer<Int32> {
            let buffer = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(array.count, 1))
            _ = buffer.initialize(from: array)
            return UnsafeMutableBufferPointer(rebasing: buffer[0..<array.count])
        }
        self.types = copy(types)
        self.categories = copy(categories)
        self.attributes = copy(attributes)
        self.values = copy(values)
    }

    deinit {
        for buffer in [types, categories, attributes, values] { buffer.baseAddress?.deallocate() }
    }
}

/// Facet counts being made, in raw buffers sized to a snapshot's numbering.
final class FacetTally {
    let types: UnsafeMutableBufferPointer<Int32>
    let categories: UnsafeMutableBufferPointer<Int32>
    let values: UnsafeMutableBufferPointer<Int32>
    /// The column ``values`` are the memory of: handed over by ``counts``.
    private let valueCounts: CountColumn
    let buckets: UnsafeMutableBufferPointer<Int32>
    /// Per attribute: whether a counted document has it.
    let seen: UnsafeMutableBufferPointer<Bool>
    /// Per attribute: its bucket layout (numeric attributes; count 0 for the others) and where its
    /// buckets start, flat so the counting loop reads no optionals.
    private let layoutStart: UnsafeMutableBufferPointer<Double>
    private let layoutWidth: UnsafeMutableBufferPointer<Double>
    private let layoutCount: UnsafeMutableBufferPointer<Int>
    private let bucketStart: UnsafeMutableBufferPointer<Int>
    var textNumbers: [Int32: [String: Int32]] = [:]

    /// An empty tally of `numbering`, to count some documents in or out.
    init(_ numbering: FacetNumbering) {
        types = filledBuffer(numbering.typeNames.count, 0)
        categories = filledBuffer(numbering.categoryNames.count, 0)
        (valueCounts, values) = CountColumn.zeros(numbering.valueLabels.count)
        buckets = filledBuffer(Int(numbering.bucketStart.last ?? 0), 0)
        seen = filledBuffer(numbering.attributeNames.count, false)
        let attributes = numbering.attributeNames.count
        layoutStart = filledBuffer(attributes, 0)
        layoutWidth = filledBuffer(attributes, 1)
        layoutCount = filledBuffer(attributes, 0)
        bucketStart = filledBuffer(attributes, 0)
        for (attribute, layout) in numbering.buckets.enumerated() {
            guard let layout else { continue }
            layoutStart[attribute] = layout.start
            layoutWidth[attribute] = layout.width
            layoutCount[attribute] = layout.count
            bucketStart[attribute] = Int(numbering.bucketStart[attribute])
        }
    }

    deinit {
        types.baseAddress?.deallocate()
        categories.baseAddress?.deallocate()
        buckets.baseAddress?.deallocate()
        seen.baseAddress?.deallocate()
        layoutStart.baseAddress?.deallocate()
        layoutWidth.baseAddress?.deallocate()
        layoutCount.baseAddress?.deallocate()
        bucketStart.baseAddress?.deallocate()
    }

    /// The counts, once counting is over: the value counts are this tally's own buffer, handed
    /// over (see ``CountColumn``), so nothing is counted into the tally afterwards.
    var counts: FacetCounts {
        FacetCounts(
            types: Array(types), categories: Array(categories), values: valueCounts,
            buckets: Array(buckets), textNumbers: FacetCounts.nonEmpty(textNumbers))
    }

    /// Adds another tally of the same numbering (counted over other documents) to this one.
    func add(_ other: FacetTally) {
        for (mine, theirs) in [
            (types, other.types), (categories, other.categories), (values, other.values),
            (buckets, other.buckets),
        ] {
            for i in mine.indices { mine[i] &+= theirs[i] }
        }
        for i in seen.indices where other.seen[i] { seen[i] = true }
        for (attribute, labels) in other.textNumbers {
            for (label, count) in labels { textNumbers[attribute, default: [:]][label, default: 0] &+= count }
        }
    }

    /// Counts the document's type.
    @inline(__always) func addType(_ doc: Int, of segment: Segment, _ numbers: SegmentNumbers, sign: Int32 = 1) {
        types[Int(numbers.types[Int(segment.docType[doc])])] &+= sign
    }

    /// Counts the document's category and each ancestor.
    @inline(__always) func addCategories(_ doc: Int, of segment: Segment, _ numbers: SegmentNumbers, sign: Int32 = 1) {
        var category = segment.docCategory[doc]
        while category != .max {
            categories[Int(numbers.categories[Int(category)])] &+= sign
            category = segment.categoryParent[Int(category)]
        }
    }

    /// Counts value id `value` of a segment (a string value or a number).
    @inline(__always) func addValue(_ value: UInt32, of segment: Segment, _ numbers: SegmentNumbers, count: Int32 = 1) {
        if !segment.isNumber(value) {
            values[Int(numbers.values[Int(value)])] &+= count
        } else {
            let attribute = Int(numbers.attributes[Int(segment.attribute(ofValue: value))])
            addNumber(segment.number(value), attribute: attribute, count: count)
        }
    }

    /// Counts number `n` of snapshot attribute `attribute`: in its bucket, or by its text when
    /// the attribute also has strings.
    @inline(__always) func addNumber(_ n: Double, attribute: Int, count: Int32) {
        if layoutCount[attribute] > 0 {
            buckets[bucketStart[attribute] + bucket(of: n, attribute: attribute)] &+= count
        } else {
            textNumbers[Int32(attribute), default: [:]][formatNumber(n), default: 0] &+= count
        }
    }

    /// The bucket of number `n` of a numeric snapshot attribute: NumberBuckets.index(of:), on
    /// the flat layout.
    @inline(__always) private func bucket(of n: Double, attribute: Int) -> Int {
        NumberBuckets.index(
            of: n, start: layoutStart[attribute], width: layoutWidth[attribute], count: layoutCount[attribute])
    }

    /// Adds `counts[id]` for each id of `ids`, one attribute's number ids of `segment` (ascending
    /// by number), to snapshot attribute `attribute`; returns whether any count was not zero.
    ///
    /// A bucket's numbers are a run of those ids (the bucket of a number never decreases as the
    /// number grows), so each bucket costs a binary search for its end and a sum.
    func addNumberCounts(
        _ counts: UnsafeMutableBufferPointer<Int32>, ids: Range<UInt32>, of segment: Segment, attribute: Int32
    ) -> Bool {
        let attribute = Int(attribute)
        var counted = false
        guard layoutCount[attribute] > 0 else {
            for id in ids where counts[Int(id)] != 0 {
                counted = true
                addNumber(segment.number(id), attribute: attribute, count: counts[Int(id)])
            }
            return counted
        }
        @inline(__always) func bucket(_ id: Int) -> Int {
            self.bucket(of: segment.number(UInt32(id)), attribute: attribute)
        }
        var low = Int(ids.lowerBound)
        let end = Int(ids.upperBound)
        while low < end {
            let current = bucket(low)
            var high = end
            var first = low + 1
            while first < high {
                let mid = first + (high - first) / 2
                if bucket(mid) > current { high = mid } else { first = mid + 1 }
            }
            var sum: Int32 = 0
            for id in low..<high { sum &+= counts[id] }
            if sum != 0 {
                buckets[bucketStart[attribute] + current] &+= sum
                counted = true
            }
            low = high
        }
        return counted
    }

    /// Counts every facet value of `docs`, snapshot numbers of one segment whose first is `base`.
    ///
    /// Over many documents the loop counts per slot of the segment (its string values and the
    /// buckets of its numbers, see ``FacetSlots``), reading nothing but the segment's columns, and
    /// maps the counts to the snapshot's numbers at the end; over few, when that end would cost
    /// more than the documents, it maps each pair as it comes. The numbering's first segment,
    /// whose string value ids are the snapshot's numbers, counts its strings straight into
    /// ``values`` when its slots are wide (see ``FacetSlots/countStrings(_:base:of:into:numbers:)``).
    ///
    /// For counts without constraints only, which read no ``seen``: string values counted
    /// straight in note none.
    func addDocuments(
        _ docs: ArraySlice<Int32>, base: Int32, of segment: Segment, _ numbers: SegmentNumbers,
        _ numbering: FacetNumbering
    ) {
        let slots = segment.facetSlots(numbers, numbering)
        guard SegmentCounts.pays(for: docs.count, in: segment, folding: slots.slotCount) else {
            countEach(docs, base: base, of: segment, numbers, sameIDs: numbering.keepsValueIDs(of: segment))
            return
        }
        let local = SegmentCounts(segment, countsValues: false)
        for doc in docs {
            local.addType(Int(doc - base))
            local.addCategory(Int(doc - base))
        }
        local.fold(into: self, numbers)
        if slots.countsStringsInPlace && numbering.keepsValueIDs(of: segment) {
            let numberCounts = filledBuffer(slots.slotCount - slots.stringCount, Int32(0))
            defer { numberCounts.baseAddress?.deallocate() }
            slots.countStrings(docs, base: base, of: segment, into: values, numbers: numberCounts)
            slots.foldNumbers(numberCounts, of: segment, into: self, numbers, numbering)
            return
        }
        let counts = filledBuffer(slots.slotCount, Int32(0))
        defer { counts.baseAddress?.deallocate() }
        slots.count(docs, base: base, of: segment, into: counts)
        slots.fold(counts, of: segment, into: self, numbers, numbering)
    }

    /// Counts every facet value of each of `docs` as it comes, for ``addDocuments(_:base:of:_:_:)``
    /// (whose counts read no ``seen``): a string value costs its increment alone, without a look-up
    /// of its attribute, nor of its number where the segment's ids are the snapshot's (`sameIDs`).
    /// On a wide catalog each look-up was a read far from the last (archive-100k: 175,000 string
    /// values), as the increment is.
    private func countEach(
        _ docs: ArraySlice<Int32>, base: Int32, of segment: Segment, _ numbers: SegmentNumbers, sameIDs: Bool
    ) {
        let valueNumbers = numbers.values
        for doc in docs {
            let local = Int(doc - base)
            addType(local, of: segment, numbers)
            addCategories(local, of: segment, numbers)
            for pair in segment.attributes(of: local) {
                let value = segment.pairValue[pair]
                if segment.isNumber(value) {
                    addValue(value, of: segment, numbers)
                } else {
                    values[sameIDs ? Int(value) : Int(valueNumbers[Int(value)])] &+= 1
                }
            }
        }
    }

    /// Counts every facet value of a document.
    @inline(__always) func add(_ doc: Int, of segment: Segment, _ numbers: SegmentNumbers, sign: Int32 = 1) {
        addType(doc, of: segment, numbers, sign: sign)
        addCategories(doc, of: segment, numbers, sign: sign)
        for pair in segment.attributes(of: doc) {
            let value = segment.pairValue[pair]
            seen[Int(numbers.attributes[Int(segment.attribute(ofValue: value))])] = true
            addValue(value, of: segment, numbers, count: sign)
        }
    }
}

/// One segment's facet counts in its own numbering (value ids, its type and category numbers),
/// folded into a snapshot's ``FacetTally`` at the end: the per-document loop reads only the
/// segment's columns and increments, and the mapping to the snapshot's numbers (categories to
/// their ancestors, attributes seen) costs once per distinct string value, and a number's bucket
/// once per bucket (a sum over a run of ids).
final class SegmentCounts {
    private let segment: Segment
    private let types: UnsafeMutableBufferPointer<Int32>
    /// One more slot for documents without a category.
    private let categories: UnsafeMutableBufferPointer<Int32>
    private let values: UnsafeMutableBufferPointer<Int32>
    /// Value ids present in a document looked at but not counted (which attributes to show);
    /// empty unless the counts were made to note them: only for attributes that share their
    /// mask's bit (see ``notePresent(attributesOf:_:)``).
    private let present: UnsafeMutableBufferPointer<Bool>
    /// Whether ``notePresent(_:)`` was called: otherwise `present` is all false.
    private var anyNoted = false
    /// The attributes of the documents looked at but not counted, as the segment's mask bits
    /// (see ``AttributeMasks``); empty unless the counts were made to note them.
    private let presentAttributes: UnsafeMutableBufferPointer<UInt64>
    private let maskLayout: AttributeMasks.Layout
    private let noCategory: UInt32
    private let countsValues: Bool

    /// Whether counting `documents` of `segment` this way costs less than mapping each pair as
    /// it comes. The fold reads every value id of the segment once, but numbers only as sums
    /// over runs.
    static func pays(for documents: Int, in segment: Segment) -> Bool {
        pays(for: documents, in: segment, folding: segment.valueCount)
    }

    /// Whether counting `documents` of `segment` into counters indexed by the segment's own ids
    /// (`counters` of them, plus its categories), folded once at the end, costs less than mapping
    /// each pair as it comes: mapping one pair (a random read, and a bucket's arithmetic for a
    /// number) costs about what eight counters of the fold cost (measured on the shop and sparse
    /// catalogs).
    static func pays(for documents: Int, in segment: Segment, folding counters: Int) -> Bool {
        let pairsPerDocument = segment.pairValue.count / max(segment.count, 1)
        return documents * (pairsPerDocument + 2) * 8 >= counters + segment.categoryNames.count
    }

    /// Counts for `segment`; `notesPresence` when some documents will be noted but not counted
    /// (``notePresent(attributesOf:_:)``).
    ///
    /// Without `countsValues`, only types and categories are counted (the values by
    /// ``FacetSlots``).
    init(_ segment: Segment, notesPresence: Bool = false, countsValues: Bool = true) {
        self.segment = segment
        self.countsValues = countsValues
        types = filledBuffer(segment.typeNames.count, 0)
        categories = filledBuffer(segment.categoryNames.count + 1, 0)
        values = filledBuffer(countsValues ? segment.valueCount : 0, 0)
        // Masks note the attributes with a bit of their own; the rest are noted by their values.
        maskLayout = AttributeMasks.Layout(attributes: segment.attributeNames.count)
        present = filledBuffer(notesPresence && maskLayout.sharesLastBit ? segment.valueCount : 0, false)
        presentAttributes = filledBuffer(notesPresence ? maskLayout.words : 0, 0)
        noCategory = UInt32(segment.categoryNames.count)
    }

    deinit {
        types.baseAddress?.deallocate()
        categories.baseAddress?.deallocate()
        values.baseAddress?.deallocate()
        present.baseAddress?.deallocate()
        presentAttributes.baseAddress?.deallocate()
    }

    @inline(__always) func addType(_ doc: Int) { types[Int(segment.docType[doc])] &+= 1 }

    @inline(__always) func addCategory(_ doc: Int) {
        categories[Int(min(segment.docCategory[doc], noCategory))] &+= 1
    }

    /// Counts value id `value`; a counted value is present without being noted.
    @inline(__always) func addValue(_ value: UInt32) { values[Int(value)] &+= 1 }

    /// Notes value id `value` present without counting it (its attribute shows, with counts
    /// that its own filter leaves out).
    @inline(__always) private func notePresent(_ value: UInt32) {
        present[Int(value)] = true
        anyNoted = true
    }

    /// Notes the attributes of document `doc` present without counting its values (they show,
    /// with the counts the constraints leave); `masks` are its segment's
    /// (``AttributeMasks/masks``).
    @inline(__always) func notePresent(attributesOf doc: Int, _ masks: UnsafeBufferPointer<UInt64>) {
        let words = maskLayout.words
        let start = doc * words
        for word in 0..<words { presentAttributes[word] |= masks[start + word] }
        if maskLayout.sharesLastBit && masks[start + words - 1] >> 63 != 0 {
            for pair in segment.attributes(of: doc) { notePresent(segment.pairValue[pair]) }
        }
    }

    /// Adds the counts to `tally`, in its snapshot's numbers.
    func fold(into tally: FacetTally, _ numbers: SegmentNumbers) {
        for (local, count) in types.enumerated() where count != 0 {
            tally.types[Int(numbers.types[local])] &+= count
        }
        for (local, count) in categories.dropLast().enumerated() where count != 0 {
            var category = UInt32(local)
            while category != .max {
                tally.categories[Int(numbers.categories[Int(category)])] &+= count
                category = segment.categoryParent[Int(category)]
            }
        }
        guard countsValues else { return }
        for (word, bits) in presentAttributes.enumerated() {
            var noted = bits
            while noted != 0 {
                let bit = word * 64 + noted.trailingZeroBitCount
                if !maskLayout.isShared(bit) { tally.seen[Int(numbers.attributes[bit])] = true }
                noted &= noted - 1
            }
        }
        for value in 0..<segment.valueStrings.count where values[value] != 0 || (anyNoted && present[value]) {
            tally.seen[Int(numbers.attributes[Int(segment.valueAttribute[value])])] = true
            let count = values[value]
            if count != 0 { tally.addValue(UInt32(value), of: segment, numbers, count: count) }
        }
        // Numbers: each attribute's ids are one ascending run, so a bucket's numbers are a run
        // of ids too, and folding costs a sum per bucket rather than a mapping per number.
        var next = segment.valueStrings.count
        while next < segment.valueCount {
            let attribute = segment.attribute(ofValue: UInt32(next))
            let ids = segment.numberIDs(of: attribute)
            let counted = tally.addNumberCounts(
                values, ids: ids, of: segment, attribute: numbers.attributes[Int(attribute)])
            if counted || (anyNoted && present[Int(ids.lowerBound)..<Int(ids.upperBound)].contains(true)) {
                tally.seen[Int(numbers.attributes[Int(attribute)])] = true
            }
            next = Int(ids.upperBound)
        }
    }
}
