import Testing

@_spi(Benchmarks) @testable import SearchSession

/// The exact scan behind print matching agrees with a brute-force ranking.
@Suite struct ImageVectorScanTests {
    /// Row counts and dimensions that are not multiples of the scan's block (4 rows) or lane
    /// count (8), so the tails are exercised too.
    @Test(arguments: [(1003, 37), (8, 128), (3, 5), (400, 200)])
    func theScanReturnsExactlyTheBruteForceNearest(rows: Int, dimension: Int) {
        var rng = SplitMix64(state: UInt64(rows * 1000 + dimension))
        var index = VectorIndex(model: "m", dimension: dimension)
        var vectors = [[Float]]()
        for doc in 0..<rows {
            let v = (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) }
            vectors.append(v)
            index.add(doc: Int32(doc), values: v)
        }
        for _ in 0..<5 {
            let query = (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) }
            let qn = query.reduce(0) { $0 + $1 * $1 }.squareRoot()
            let expected = vectors.enumerated().map { doc, v in
                let vn = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
                let dot = zip(v, query).reduce(0) { $0 + $1.0 * $1.1 }
                return (doc: Int32(doc), distance: 1 - dot / (vn * qn))
            }.sorted { ($0.distance, $0.doc) < ($1.distance, $1.doc) }
            let found = index.search(query, maxDistance: 2, limit: 10)
            #expect(found.map { $0.doc } == expected.prefix(10).map { $0.doc })
            for (a, b) in zip(found, expected) { #expect(abs(a.distance - b.distance) < 1e-4) }
            // A distance cut-off (half-way between the 3rd and 4th nearest) keeps exactly three.
            let cut = rows > 3 ? (expected[2].distance + expected[3].distance) / 2 : 2
            let within = index.search(query, maxDistance: cut, limit: 50)
            #expect(within.map { $0.doc } == expected.prefix(3).map { $0.doc })
        }
    }
}
