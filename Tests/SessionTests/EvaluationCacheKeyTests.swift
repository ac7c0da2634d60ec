import Testing

@testable import SearchSession

/// What keys an evaluation in the cache: everything of its session that the evaluation reads.
@Suite struct EvaluationCacheKeyTests {
    static func record(maxDistance: Float?, locale: String = "") -> SessionRecord {
        SessionRecord(
            id: "same-id", labels: [Label("red")], prints: [], source: .camera, locale: locale, pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: .max, maxDistance: maxDistance)
    }

    @Test func aRecordWithAnotherPrintDistanceHasAnotherContent() {
        // A caller may pass another record under the same id; a picture match's distance decides
        // which documents are hits, so it is part of the content an evaluation is kept by.
        let hashes = [nil, 0.1, 0.2, 0].map { EvaluationCache.contentHash(of: Self.record(maxDistance: $0)) }
        #expect(Set(hashes).count == 4)
        #expect(
            EvaluationCache.contentHash(of: Self.record(maxDistance: 0.1))
                == EvaluationCache.contentHash(of: Self.record(maxDistance: 0.1)))
        #expect(
            EvaluationCache.contentHash(of: Self.record(maxDistance: nil))
                != EvaluationCache.contentHash(of: Self.record(maxDistance: nil, locale: "de")))
    }
}
