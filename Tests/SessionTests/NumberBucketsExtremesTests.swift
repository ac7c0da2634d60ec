import Testing

@testable import SearchSession

/// Numeric facets over numbers near Double's limits: a span past Double's range (−1.7e308 to
/// 1.7e308) once made the bucket layout infinite and its first bucket NaN, and the conversion
/// of either to an index stopped the server.
@Suite struct NumberBucketsExtremesTests {
    static let extremes: [Double] = [
        -.greatestFiniteMagnitude, .greatestFiniteMagnitude, -1.7e308, 1.7e308, 1e308, -1e308, 0, 1,
        .leastNonzeroMagnitude, -.leastNormalMagnitude, 9.007_199_254_740_993e15, -4.5e307,
    ]

    @Test(arguments: [false, true]) func everyFiniteValueHasABucketInsideTheLayout(integral: Bool) {
        for low in Self.extremes {
            for high in Self.extremes where high >= low {
                let buckets = NumberBuckets(min: low, max: high, integral: integral)
                #expect(buckets.count >= 1 && buckets.count < NumberBuckets.mostBuckets, "\(low)…\(high)")
                #expect(buckets.start.isFinite && buckets.width.isFinite && buckets.width > 0, "\(low)…\(high)")
                for value in Self.extremes {
                    let index = buckets.index(of: value)
                    #expect(index >= 0 && index < buckets.count, "\(value) in \(low)…\(high)")
                }
                #expect(buckets.index(of: low) <= buckets.index(of: high))
                for bucket in 0..<buckets.count {
                    let bounds = buckets.bounds(bucket)
                    #expect(
                        bounds.min.isFinite && bounds.max.isFinite && bounds.min <= bounds.max,
                        "\(low)…\(high) bucket \(bucket): \(bounds)")
                }
            }
        }
    }

    @Test func aCatalogSpanningDoublesRangeCountsItsNumbers() throws {
        let lines = [
            #"{"type":"part","id":"low","title":"Low part","tags":["part"],"attributes":{"size":-1.7e308}}"#,
            #"{"type":"part","id":"high","title":"High part","tags":["part"],"attributes":{"size":1.7e308}}"#,
            #"{"type":"part","id":"mid","title":"Mid part","tags":["part"],"attributes":{"size":3}}"#,
        ]
        let file = CatalogLoader.parse(Array(lines.joined(separator: "\n").utf8))
        #expect(file.errors.isEmpty)
        let engine = SearchEngine(catalog: file)
        let session = SessionRecord(
            id: SessionRecord.newID(), labels: [Label("part")], prints: [], source: .camera, locale: "en", pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: 1)
        let state = try engine.search(session: session, request: SearchRequest(sessionID: session.id))
        #expect(state.totalHits == 3)
        let size = try #require(state.facets.first { $0.name == "size" })
        #expect(size.values.reduce(0) { $0 + $1.count } == 3)
        let positive = try engine.search(
            session: session,
            request: SearchRequest(sessionID: session.id, filters: [.range("size", min: 0, max: nil)]))
        #expect(positive.totalHits == 2)
    }
}
