import Testing

@testable import SearchSession

@Suite struct BM25Tests {
    // d0 "Red Guitar"; d1 "Blue Guitar" tagged "guitar"; d2 "Drum". N = 3, k1 = 1.2, b = 0.75.
    // Title lengths 2, 2, 1 (avg 5/3); tag lengths 0, 1, 0 (avg 1/3).
    let engine = SearchEngine(entities: [
        Entity(type: "t", id: "d0", title: "Red Guitar"),
        Entity(type: "t", id: "d1", title: "Blue Guitar", tags: ["guitar"]),
        Entity(type: "t", id: "d2", title: "Drum"),
    ])

    @Test func scoresMatchHandComputedBM25F() throws {
        let snapshot = engine.snapshot
        func matchAll(_ terms: [String]) -> [Int32: Float] {
            let m = TextIndex.matchAll(terms, in: snapshot)
            return Dictionary(uniqueKeysWithValues: zip(m.docs, m.scores))
        }
        // idf(guitar) = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln 1.6 = 0.470004
        #expect(abs(TextIndex.idf("guitar", in: snapshot) - 0.470004) < 1e-5)
        // idf(red) = ln(1 + 2.5 / 1.5) = 0.980829
        #expect(abs(TextIndex.idf("red", in: snapshot) - 0.980829) < 1e-5)
        let scores = matchAll(["guitar"])
        // d0: title norm 0.25 + 0.75 · 2 / (5/3) = 1.15; tf̃ = 3 / 1.15 = 2.608696;
        //     sat = tf̃ · 2.2 / (tf̃ + 1.2) = 1.506849; score = 0.470004 · 1.506849 = 0.708225
        #expect(abs(try #require(scores[0]) - 0.708225) < 1e-4)
        // d1: tf̃ = 2.608696 + 2 · 1 / (0.25 + 0.75 · 3) = 3.408696; sat = 1.627170; score = 0.764776
        #expect(abs(try #require(scores[1]) - 0.764776) < 1e-4)
        #expect(scores[2] == nil)
        // "red guitar": only d0 has both; 0.708225 + 0.980829 · 1.506849 = 2.186186
        let both = matchAll(["red", "guitar"])
        #expect(both.count == 1)
        #expect(abs(try #require(both[0]) - 2.186186) < 1e-4)
    }

    @Test func exactTagHitsRankFirst() throws {
        let engine = SearchEngine(entities: [
            Entity(type: "t", id: "many", title: "Guitar guitar guitar guitar"),
            Entity(type: "t", id: "tagged", title: "Something else entirely here", tags: ["guitar"]),
        ])
        let results = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("guitars")])))
        #expect(results.map(\.entity.id) == ["tagged", "many"])
    }

    @Test func titleOutweighsTagsOutweighsSubtitleOutweighsCategory() throws {
        let engine = SearchEngine(entities: [
            Entity(type: "t", id: "category", title: "A", category: "Bass"),
            Entity(type: "t", id: "subtitle", title: "B", subtitle: "Bass"),
            Entity(type: "t", id: "tags", title: "C", tags: ["bass x"]),
            Entity(type: "t", id: "title", title: "Bass D"),
        ])
        let results = try engine.query(QueryRequest(descriptor: Descriptor(labels: [Label("bass")])))
        #expect(results.map(\.entity.id) == ["title", "tags", "subtitle", "category"])
    }

    @Test func aSingleTermScoresAsTheGeneralIntersectionDoes() throws {
        // One term in one group takes a loop of its own; a second group of the same term with
        // weight 0 takes the general one, whose sum adds exactly 0. Several segments, deletes, a range.
        let snapshot = try FacetAndPagingTests.segmentedSnapshot(seed: 31)
        for term in ["item", "red", "song", "blue"] {
            for weight: Float in [1, 0.37] {
                for range in [Int32.min..<Int32.max, 50..<(Int32(snapshot.documentCount) - 50)] {
                    let alone = TextIndex.matchEvery([([term], weight)], in: snapshot, range: range)
                    let general = TextIndex.matchEvery([([term], weight), ([term], 0)], in: snapshot, range: range)
                    #expect(!alone.docs.isEmpty)
                    #expect(alone.docs == general.docs, "\(term)")
                    #expect(alone.scores.map(\.bitPattern) == general.scores.map(\.bitPattern), "\(term)")
                }
            }
        }
    }

    @Test func twoTermsScoreAsTheGeneralIntersectionDoes() throws {
        // Two terms, in one group or one each, take a loop of their own; a third group of one of
        // them with weight 0 takes the general one, whose sum adds exactly 0. Several segments,
        // deletes, a range, either term the shorter list.
        let snapshot = try FacetAndPagingTests.segmentedSnapshot(seed: 37)
        for (a, b) in [("item", "red"), ("red", "item"), ("blue", "item"), ("item", "song")] {
            for range in [Int32.min..<Int32.max, 50..<(Int32(snapshot.documentCount) - 50)] {
                let shapes: [[(terms: [String], weight: Float)]] = [[([a, b], 0.8)], [([a], 0.9), ([b], 0.6)]]
                for groups in shapes {
                    let own = TextIndex.matchEvery(groups, in: snapshot, range: range)
                    let general = TextIndex.matchEvery(groups + [([b], 0)], in: snapshot, range: range)
                    #expect(!own.docs.isEmpty, "\(a) \(b)")
                    #expect(own.docs == general.docs, "\(a) \(b) \(groups.count)")
                    #expect(own.scores.map(\.bitPattern) == general.scores.map(\.bitPattern), "\(a) \(b)")
                }
            }
        }
    }

    @Test(
        "intersections find every document that has all the terms, whether the other lists are probed as bits or searched"
    )
    func intersectionsEqualABruteForceRecount() throws {
        // "common" (every title) and "third" hold enough of the segment to be probed as bits;
        // "twentieth", "thirtieth" and "rare" (three documents far apart) do not, so they are
        // searched: by long gallops behind "rare", by short steps behind "thirtieth". Two and
        // three terms, in either order, each list both driven and probed or searched.
        let rare: Set<Int> = [7, 5_000, 11_990]
        let has: [String: (Int) -> Bool] = [
            "common": { _ in true }, "third": { $0 % 3 == 0 }, "twentieth": { $0 % 20 == 0 },
            "thirtieth": { $0 % 30 == 0 }, "rare": { rare.contains($0) },
        ]
        let entities = (0..<12_000).map { i in
            let words = ["word\(i)"] + has.keys.sorted().filter { has[$0]!(i) }
            return Entity(type: "t", id: "d\(i)", title: words.joined(separator: " "))
        }
        let snapshot = SearchEngine(entities: entities).snapshot
        let segment = try #require(snapshot.segments.first)
        for (term, probed) in ["common": true, "third": true, "twentieth": false, "thirtieth": false, "rare": false] {
            let number = try #require(segment.term(term))
            #expect((segment.denseBits(number) != nil) == probed, "\(term)")
        }
        let alone = Dictionary(
            uniqueKeysWithValues: has.keys.map { term in
                let match = TextIndex.matchEvery([([term], 1)], in: snapshot, range: Int32.min..<Int32.max)
                return (term, Dictionary(uniqueKeysWithValues: zip(match.docs, match.scores)))
            })
        for terms in [
            ["rare", "common"], ["rare", "common", "third"], ["third", "common"], ["common", "third", "rare"],
            ["rare", "twentieth"], ["thirtieth", "twentieth"], ["twentieth", "common"],
            ["thirtieth", "twentieth", "common"], ["rare", "twentieth", "third"],
        ] {
            let match = TextIndex.matchEvery([(terms, 1)], in: snapshot, range: Int32.min..<Int32.max)
            let expected = (0..<12_000).filter { doc in terms.allSatisfy { has[$0]!(doc) } }
            let ids = match.docs.map { snapshot.entity(at: $0).id }
            #expect(match.docs == match.docs.sorted())
            #expect(ids.count == expected.count && Set(ids) == Set(expected.map { "d\($0)" }), "\(terms)")
            for (doc, score) in zip(match.docs, match.scores) {
                let sum = terms.reduce(Float(0)) { $0 + alone[$1]![doc]! }
                #expect(abs(score - sum) <= 1e-5 * sum, "\(terms) \(doc)")
            }
        }
    }

    @Test func exactHitsAreTheMatchesTitledOrTaggedExactlySoWhereverTheyLie() throws {
        // A few exact hits in a narrow span of a larger catalog (the set of them covers only that
        // span), in one pass and in two halves: exactly those matches are marked exact.
        let entities = (0..<400).map { i in
            Entity(
                type: "t", id: "d\(i)", title: (180..<186).contains(i) ? "Lamp" : "Lamp \(i)",
                tags: i == 390 ? ["lamp"] : [])
        }
        let snapshot = SearchEngine(entities: entities).snapshot
        let groups = [TextGroup(display: "lamp", terms: ["lamp"], weight: 1)]
        for splitFrom in [0, Int.max] {
            let ranked = try #require(
                Ranker.rank(
                    snapshot, groups: groups, mode: .all, prints: [], maxDistance: nil, imageLimit: 0, ordered: false,
                    splitFrom: splitFrom))
            #expect(ranked.count == 400)
            let exact = ranked.filter(\.exact).map { snapshot.segments[0].ref(of: Int($0.doc)).id }
            #expect(exact == (180..<186).map { "d\($0)" } + ["d390"], "split from \(splitFrom)")
        }
    }
}
