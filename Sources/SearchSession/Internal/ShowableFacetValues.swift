/// The values of a flat count array (one facet, or every attribute's string values at once)
/// that a facet can show, found without a list of every counted value.
///
/// A common label's hits can count tens of thousands of values of a wide facet (streets,
/// authors) of which a hundred are shown. Only values counted at least as often as their
/// facet's `limit`-th most counted can be among them. One pass over the catalog's values notes
/// the counted ones; over those, a histogram of each facet's counts (capped) gives that
/// threshold, and a last pass collects the values at or above it into one flat array, facet by
/// facet.
struct ShowableFacetValues {
    /// Per facet: how many of its values have a count.
    let counted: [Int]
    /// Per facet: the sum of its `limit` largest counts (the hits the values it lists count).
    let weights: [Int]
    /// The showable value numbers, facet after facet, ascending within a facet.
    private let members: [Int32]
    /// Per facet: where its members start in `members`, and how many there are.
    private let start: [Int]
    private let filled: [Int]

    /// The showable values of `counts`.
    ///
    /// - Parameters:
    ///   - facetOf: Each value's facet (0..<facets), or `nil` when all are of facet 0.
    ///   - limit: The most values a facet shows.
    ///   - keepsAll: Per facet: whether every counted value is needed (a selection is looked
    ///     for among all; counts merged by label must all be there).
    ///   - collecting: Given each facet's weight and count of values, which facets' values to
    ///     collect (the others' ``values(of:)`` are empty): every facet by default. A facet of
    ///     80,000 values of one hit each (accession numbers) ties them all at its threshold, and
    ///     collecting them for a facet that is not listed cost a Capture a millisecond.
    init(
        _ counts: some ContiguousCounts, facetOf: [Int32]?, facets: Int, limit: Int, keepsAll: [Bool],
        collecting: (_ weights: [Int], _ counted: [Int]) -> [Bool] = { weights, _ in weights.map { _ in true } }
    ) {
        let bins = Self.histogramBins
        let copies = Self.histogramCopies
        // Per facet, how many of its values have each count (the last bin: that count or more),
        // in several copies taken in turn: consecutive values of a facet mostly fall in one bin,
        // and one copy would make each increment wait for the one before.
        let histogram = filledBuffer(copies * facets * bins, Int32(0))
        let threshold = filledBuffer(facets, Int32(1))
        let start = filledBuffer(facets, 0)
        let filled = filledBuffer(facets, 0)
        defer {
            histogram.baseAddress?.deallocate()
            threshold.baseAddress?.deallocate()
            start.baseAddress?.deallocate()
            filled.baseAddress?.deallocate()
        }
        let valueFacets = facetOf ?? [Int32](repeating: 0, count: counts.count)
        var counted = [Int](repeating: 0, count: facets)
        var weights = [Int](repeating: 0, count: facets)
        var members = [Int32]()
        counts.withUnsafeBufferPointer { counts in
            valueFacets.withUnsafeBufferPointer { facetOf in
                // The counted values first. Whether a value is counted varies from one to the next
                // like a coin toss for a few thousand hits, and a branch on it was mispredicted at
                // every change: within a run of eight, every value is written and a counted one
                // moves the end. A run of eight uncounted values (most of them, for few hits) is
                // passed over whole. (Written before it is read, so the buffer is not filled first.)
                let nonzero = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(counts.count, 1))
                defer { nonzero.baseAddress?.deallocate() }
                var nonzeroCount = 0
                @inline(__always) func note(_ values: Range<Int>) {
                    for value in values {
                        nonzero[nonzeroCount] = Int32(truncatingIfNeeded: value)
                        // 1 for a count above 0, else 0, in arithmetic (a comparison became a branch).
                        nonzeroCount &+= (Int(counts[value]) &+ 0x7FFF_FFFF) >> 31
                    }
                }
                let runs = counts.count / 8
                let raw = UnsafeRawPointer(counts.baseAddress)
                for run in 0..<runs {
                    // Eight counts are zero when the four words that hold them are (Swift's
                    // comparison of SIMD vectors compared lane by lane, through memory).
                    let words = raw! + run * 32
                    let any =
                        words.loadUnaligned(as: UInt64.self) | words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        | words.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                        | words.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    if any == 0 { continue }
                    note((run * 8)..<(run * 8 + 8))
                }
                note((runs * 8)..<counts.count)
                // The values of the last bin (that count or more) are noted too: the weights and
                // the thresholds that fall there need their counts one by one.
                var largeValues = [Int32]()
                for position in 0..<nonzeroCount {
                    let value = Int(nonzero[position])
                    let bin = Int(min(counts[value], Int32(bins - 1)))
                    histogram[((position & (copies - 1)) * facets + Int(facetOf[value])) * bins + bin] &+= 1
                    if bin == bins - 1 { largeValues.append(Int32(truncatingIfNeeded: value)) }
                }
                // Their counts grouped by facet, in one array.
                var largeEnd = [Int](repeating: 0, count: facets + 1)
                for value in largeValues { largeEnd[Int(facetOf[Int(value)]) + 1] += 1 }
                for facet in 0..<facets { largeEnd[facet + 1] += largeEnd[facet] }
                var large = [Int](repeating: 0, count: largeValues.count)
                var largeFilled = largeEnd
                for value in largeValues {
                    let facet = Int(facetOf[Int(value)])
                    large[largeFilled[facet]] = Int(counts[Int(value)])
                    largeFilled[facet] += 1
                }
                let row = filledBuffer(bins, 0)
                defer { row.baseAddress?.deallocate() }
                for facet in 0..<facets {
                    var have = 0
                    row.update(repeating: 0)
                    for copy in 0..<copies {
                        let offset = (copy * facets + facet) * bins
                        for bin in 1..<bins { row[bin] += Int(histogram[offset + bin]) }
                    }
                    for bin in 1..<bins { have += row[bin] }
                    counted[facet] = have
                    // The `limit` largest counts: those of the last bin, then bin by bin down.
                    let largeCounts = large[largeEnd[facet]..<largeEnd[facet + 1]]
                    var left = min(limit, have)
                    var weight =
                        largeCounts.count <= left
                        ? largeCounts.reduce(0, +) : SearchEngine.largestSum(Array(largeCounts), left)
                    left -= min(left, largeCounts.count)
                    var bin = bins - 2
                    while left > 0 && bin > 0 {
                        let taken = min(left, row[bin])
                        weight += taken * bin
                        left -= taken
                        bin -= 1
                    }
                    weights[facet] = weight
                    guard !keepsAll[facet] && have > limit else { continue }
                    // The largest count with at least `limit` values counted as often or more.
                    var atLeast = 0
                    bin = bins - 1
                    while true {
                        atLeast += row[bin]
                        if atLeast >= limit { break }
                        bin -= 1
                    }
                    if bin < bins - 1 {
                        threshold[facet] = Int32(bin)
                    } else {
                        var candidates = Array(largeCounts)
                        threshold[facet] = Int32(SearchEngine.kthLargest(&candidates, limit))
                    }
                }
                let wanted = collecting(weights, counted)
                var next = 0
                for facet in 0..<facets where wanted[facet] {
                    start[facet] = next
                    next += counted[facet]
                }
                members = [Int32](repeating: 0, count: next)
                members.withUnsafeMutableBufferPointer { members in
                    for value in nonzero[..<nonzeroCount].lazy.map(Int.init) {
                        let facet = Int(facetOf[value])
                        guard wanted[facet] && counts[value] >= threshold[facet] else { continue }
                        members[start[facet] + filled[facet]] = Int32(value)
                        filled[facet] += 1
                    }
                }
            }
        }
        self.counted = counted
        self.weights = weights
        self.members = members
        self.start = Array(start)
        self.filled = Array(filled)
    }

    /// Counts below this many have a histogram bin of their own.
    static let histogramBins = 64
    /// How many copies of the histogram increments take in turn (a power of two).
    static let histogramCopies = 4

    /// The showable value numbers of `facet`, ascending.
    func values(of facet: Int) -> ArraySlice<Int32> { members[start[facet]..<(start[facet] + filled[facet])] }
}
