/// The values of a flat count array (one facet, or every attribute's string values at once)
/// that a facet can show, found without a list of every counted value.
///
/// A common label's hits can count tens of thousands of values of a wide facet (streets,
/// authors) of which a hundred are shown. Only values counted at least as often as their
/// facet's `limit`-th most counted can be among them. The counts are read run by run (see
/// ``ValueRuns``: mostly one run per facet), twice: a histogram of each facet's counts (capped)
/// gives that threshold, then the values at or above it are collected, facet after facet.
struct ShowableFacetValues {
    /// Per facet: how many of its values have a count.
    let counted: [Int]
    /// Per facet: the sum of its `limit` largest counts (the hits the values it lists count).
    let weights: [Int]
    /// The showable value numbers, facet after facet, ascending within a facet (each facet's
    /// place one longer than its values: see the second pass).
    private let members: [Int32]
    /// Per facet: where its members start in `members`, and how many there are.
    private let start: [Int]
    private let filled: [Int]

    /// The showable values of `counts`.
    ///
    /// - Parameters:
    ///   - runs: The values' facets (0..<facets), run by run.
    ///   - limit: The most values a facet shows.
    ///   - keepsAll: Per facet: whether every counted value is needed (a selection is looked
    ///     for among all; counts merged by label must all be there).
    ///   - collecting: Given each facet's weight and count of values, which facets' values to
    ///     collect (the others' ``values(of:)`` are empty): every facet by default. A facet of
    ///     80,000 values of one hit each (accession numbers) ties them all at its threshold, and
    ///     collecting them for a facet that is not listed cost a Capture a millisecond.
    init(
        _ counts: some ContiguousCounts, runs: ValueRuns, facets: Int, limit: Int, keepsAll: [Bool],
        collecting: (_ weights: [Int], _ counted: [Int]) -> [Bool] = { weights, _ in weights.map { _ in true } }
    ) {
        let bins = Self.histogramBins
        let copies = Self.histogramCopies
        let copyStride = facets * bins
        // Per facet, how many of its values have each count (the last bin: that count or more),
        // in several copies taken in turn: consecutive values of a facet mostly fall in one bin,
        // and one copy would make each increment wait for the one before.
        let histogram = filledBuffer(copies * copyStride, Int32(0))
        let threshold = filledBuffer(facets, Int32(1))
        defer {
            histogram.baseAddress?.deallocate()
            threshold.baseAddress?.deallocate()
        }
        var counted = [Int](repeating: 0, count: facets)
        var weights = [Int](repeating: 0, count: facets)
        var memberCount = [Int](repeating: 0, count: facets)
        var start = [Int](repeating: 0, count: facets)
        var filled = [Int](repeating: 0, count: facets)
        var members = [Int32]()
        counts.withUnsafeBufferPointer { counts in
            // Whether the eight counts from `value` are all zero (most of them, for few hits):
            // then they are passed over whole. (Four words at once: Swift's comparison of SIMD
            // vectors compared lane by lane, through memory.)
            let raw = UnsafeRawPointer(counts.baseAddress)
            @inline(__always) func eightAreZero(from value: Int) -> Bool {
                let words = raw! + value * 4
                return words.loadUnaligned(as: UInt64.self) | words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    | words.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                    | words.loadUnaligned(fromByteOffset: 24, as: UInt64.self) == 0
            }
            // Calls `body` with each value of `values` but those in runs of eight zero counts.
            @inline(__always) func forEachPossiblyCounted(_ values: Range<Int>, _ body: (Int) -> Void) {
                var value = values.lowerBound
                while value + 8 <= values.upperBound {
                    if !eightAreZero(from: value) {
                        for each in value..<(value + 8) { body(each) }
                    }
                    value += 8
                }
                while value < values.upperBound {
                    body(value)
                    value += 1
                }
            }
            // First pass: the histograms. An uncounted value falls in bin 0, which is not read:
            // a branch on whether a value is counted was mispredicted as often as a coin toss.
            // The values of the last bin are noted too: the weights and the thresholds that fall
            // there need their counts one by one.
            var largeValues = [Int32]()
            var largeFacets = [Int32]()
            for run in 0..<runs.count {
                let (facet, values) = Self.run(run, of: runs, upTo: counts.count)
                let row = histogram.baseAddress! + facet * bins
                forEachPossiblyCounted(values) { value in
                    let bin = Int(min(max(counts[value], 0), Int32(bins - 1)))
                    row[(value & (copies - 1)) * copyStride + bin] &+= 1
                    if bin == bins - 1 {
                        largeValues.append(Int32(truncatingIfNeeded: value))
                        largeFacets.append(Int32(truncatingIfNeeded: facet))
                    }
                }
            }
            // The large counts grouped by facet, in one array.
            var largeEnd = [Int](repeating: 0, count: facets + 1)
            for facet in largeFacets { largeEnd[Int(facet) + 1] += 1 }
            for facet in 0..<facets { largeEnd[facet + 1] += largeEnd[facet] }
            var large = [Int](repeating: 0, count: largeValues.count)
            var largeFilled = largeEnd
            for (value, facet) in zip(largeValues, largeFacets) {
                large[largeFilled[Int(facet)]] = Int(counts[Int(value)])
                largeFilled[Int(facet)] += 1
            }
            var row = [Int](repeating: 0, count: bins)
            for facet in 0..<facets {
                for bin in 0..<bins {
                    var sum = 0
                    for copy in 0..<copies { sum += Int(histogram[copy * copyStride + facet * bins + bin]) }
                    row[bin] = sum
                }
                let have = row[1...].reduce(0, +)
                counted[facet] = have
                memberCount[facet] = have
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
                    memberCount[facet] = atLeast
                } else {
                    var candidates = Array(largeCounts)
                    let kth = SearchEngine.kthLargest(&candidates, limit)
                    threshold[facet] = Int32(kth)
                    memberCount[facet] = largeCounts.count(where: { $0 >= kth })
                }
            }
            let wanted = collecting(weights, counted)
            // Each wanted facet's place holds its members and one more: the second pass writes
            // every value it reads at its facet's end and moves the end past a member only
            // (arithmetic, not a branch: members come and go like coin tosses), so the last
            // write can land one past the members.
            var next = 0
            for facet in 0..<facets where wanted[facet] {
                start[facet] = next
                next += memberCount[facet] + 1
            }
            members = [Int32](unsafeUninitializedCapacity: next) { out, initialized in
                for run in 0..<runs.count {
                    let (facet, values) = Self.run(run, of: runs, upTo: counts.count)
                    guard wanted[facet] else { continue }
                    let at = threshold[facet]
                    let place = out.baseAddress! + start[facet]
                    var end = filled[facet]
                    forEachPossiblyCounted(values) { value in
                        place[end] = Int32(truncatingIfNeeded: value)
                        // 1 for a count at or above the threshold (≥ 1), else 0.
                        end &+= Int(1 &+ ((counts[value] &- at) >> 31))
                    }
                    filled[facet] = end
                }
                initialized = next
            }
        }
        self.counted = counted
        self.weights = weights
        self.members = members
        self.start = start
        self.filled = filled
    }

    /// Run `run` of `runs`, less any values past `count` (counts of an older numbering).
    private static func run(_ run: Int, of runs: ValueRuns, upTo count: Int) -> (facet: Int, values: Range<Int>) {
        let (facet, values) = runs[run]
        return (facet, values.clamped(to: 0..<count))
    }

    /// Counts below this many have a histogram bin of their own.
    static let histogramBins = 64
    /// How many copies of the histogram increments take in turn (a power of two).
    static let histogramCopies = 4

    /// The showable value numbers of `facet`, ascending.
    func values(of facet: Int) -> ArraySlice<Int32> { members[start[facet]..<(start[facet] + filled[facet])] }
}
