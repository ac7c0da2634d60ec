import SystemInfo
import Testing

@testable import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A deterministic generator for reproducible random tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum RandomCatalog {
    static let types = ["album", "artist", "concert"]
    static let categories = ["Music/Rock", "Music/Jazz", "Music/Pop", "Books/Fiction", "Books"]
    static let cities = ["Berlin", "Hamburg", "Paris", "Tokyo", "Oslo"]

    static func entities(_ n: Int, seed: UInt64, idPrefix: String = "e") -> [Entity] {
        var rng = SplitMix64(state: seed)
        return (0..<n).map { i in
            var attributes = [String: AttributeValue]()
            if Int.random(in: 0..<10, using: &rng) < 8 {
                attributes["year"] = .number(Double(Int.random(in: 1950...2024, using: &rng)))
            }
            if Bool.random(using: &rng) { attributes["city"] = .string(cities.randomElement(using: &rng)!) }
            if Bool.random(using: &rng) {
                attributes["price"] = .number(Double(Int.random(in: 100...9000, using: &rng)) / 100)
            }
            if Int.random(in: 0..<3, using: &rng) == 0 {
                // Numbers and strings in one attribute: its numbers count by their text, not in buckets.
                attributes["size"] =
                    Bool.random(using: &rng)
                    ? .number(Double(Int.random(in: 1...40, using: &rng)))
                    : .string(["S", "M", "L"].randomElement(using: &rng)!)
            }
            let word = ["red", "blue", "green", "song", "live"].randomElement(using: &rng)!
            return Entity(
                type: types.randomElement(using: &rng)!, id: "\(idPrefix)\(i)", title: "\(word) item \(i)",
                category: categories.randomElement(using: &rng)!, attributes: attributes)
        }
    }
}

@Suite struct FacetAndPagingTests {
    func randomRequest(_ id: String, _ rng: inout SplitMix64) -> SearchRequest {
        var r = SearchRequest(sessionID: id)
        if Bool.random(using: &rng) {
            r.entityTypes = Array(RandomCatalog.types.shuffled(using: &rng).prefix(Int.random(in: 1...2, using: &rng)))
        }
        if Bool.random(using: &rng) {
            r.categories = Array(
                ["Music", "Music/Rock", "Books", "Music/Jazz"].shuffled(using: &rng).prefix(
                    Int.random(in: 1...2, using: &rng)))
        }
        if Bool.random(using: &rng) {
            r.filters.append(.anyOf("city", Array(RandomCatalog.cities.shuffled(using: &rng).prefix(2))))
        }
        if Bool.random(using: &rng) {
            let lo = Double(Int.random(in: 1950...2000, using: &rng))
            r.filters.append(.range("year", min: lo, max: lo + Double(Int.random(in: 0...30, using: &rng))))
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { r.filterExpression = .not(.filter(.range("price", max: 20))) }
        if Int.random(in: 0..<4, using: &rng) == 0 { r.filters.append(.anyOf("size", ["M", "L"])) }
        return r
    }

    /// Checks a search state's total and every facet count against a recount over `entities`
    /// (the snapshot's live entities) of those that `matches` (the labels' text match).
    func expectRecount(
        _ state: SearchState, request r: SearchRequest, entities: [Entity], numbering: FacetNumbering,
        matches: @escaping (Entity) -> Bool
    ) throws {
        let typeOK = { (e: Entity) in r.entityTypes.isEmpty || r.entityTypes.contains(e.type) }
        let catOK = { (e: Entity) in
            r.categories.isEmpty || r.categories.contains { e.category == $0 || e.category.hasPrefix($0 + "/") }
        }
        let whereOK = { (e: Entity) in matches(e) && (r.filterExpression.map { $0.matches(e) } ?? true) }
        let filtersOK = { (e: Entity, except: String?) in
            r.filters.allSatisfy { $0.attribute == except || $0.matches(e) }
        }
        let all = entities.filter { typeOK($0) && catOK($0) && whereOK($0) && filtersOK($0, nil) }
        #expect(state.totalHits == all.count)
        for facet in state.facets {
            for v in facet.values {
                let expected: Int
                switch facet.kind {
                case .type:
                    expected =
                        entities.filter { catOK($0) && whereOK($0) && filtersOK($0, nil) && $0.type == v.value }.count
                case .category:
                    expected =
                        entities.filter {
                            typeOK($0) && whereOK($0) && filtersOK($0, nil)
                                && ($0.category == v.value || $0.category.hasPrefix(v.value + "/"))
                        }.count
                case .string:
                    expected =
                        entities.filter {
                            typeOK($0) && catOK($0) && whereOK($0) && filtersOK($0, facet.name)
                                && $0.attributes[facet.name]?.description == v.value  // numbers by their text
                        }.count
                case .number:
                    let bounds = v.value.split(separator: ".").compactMap { Double($0) }
                    let attribute = try #require(numbering.attribute(named: facet.name))
                    let b = try #require(numbering.buckets[Int(attribute)])
                    expected =
                        entities.filter { e in
                            guard typeOK(e), catOK(e), whereOK(e), filtersOK(e, facet.name),
                                case .number(let n)? = e.attributes[facet.name]
                            else { return false }
                            // Integral buckets are inclusive; others half-open except the last.
                            let isLast = b.index(of: n) == b.count - 1 && b.label(b.count - 1) == v.value
                            return n >= bounds[0] && (b.integral || isLast ? n <= bounds[1] : n < bounds[1])
                        }.count
                }
                #expect(v.count == expected, "facet \(facet.name) value \(v.value) for \(r)")
            }
        }
    }

    @Test func facetCountsEqualABruteForceRecount() throws {
        let entities = RandomCatalog.entities(400, seed: 7)
        let engine = SearchEngine(entities: entities)
        let session = SessionRecord(
            id: "s", labels: [], prints: [], source: .camera, locale: "", pageSize: 10, createdAtUnixMs: 0,
            expiresAtUnixMs: 1)
        var rng = SplitMix64(state: 42)
        var compared = 0
        for _ in 0..<200 {
            let r = randomRequest("s", &rng)
            let state = try engine.search(session: session, request: r)
            guard state.relaxations.isEmpty else { continue }
            compared += 1
            try expectRecount(state, request: r, entities: entities, numbering: engine.snapshot.numbering) { _ in true }
        }
        #expect(compared > 100)
    }

    /// Label searches count their facets by slot (string values and number buckets, see
    /// `FacetSlots`): the counts must be a recount's, on a snapshot of several segments with
    /// deletes, and again after writes that widen a number's range (new bucket layouts, so the
    /// slots are made again), add values, and put a string beside numbers.
    @Test func labelSearchFacetsEqualARecountAcrossWritesThatMoveTheBuckets() throws {
        var live = Dictionary(uniqueKeysWithValues: RandomCatalog.entities(900, seed: 23).map { ($0.id, $0) })
        let engine = SearchEngine(entities: Array(live.values))
        func expectLabelSearchesRecount(_ stage: String) throws {
            let entities = Array(live.values)
            for word in ["red", "item", "song"] {
                let session = SessionRecord(
                    id: "\(stage)-\(word)", labels: [Label(word)], prints: [], source: .camera, locale: "",
                    pageSize: 10, createdAtUnixMs: 0, expiresAtUnixMs: 1)
                let state = try engine.search(session: session, request: SearchRequest(sessionID: session.id))
                #expect(state.relaxations.isEmpty)
                #expect(state.totalHits > 50, "\(stage) \(word)")
                try expectRecount(
                    state, request: SearchRequest(sessionID: session.id), entities: entities,
                    numbering: engine.snapshot.numbering
                ) { $0.title.split(separator: " ").contains(Substring(word)) }
            }
        }
        try expectLabelSearchesRecount("start")
        var changed = RandomCatalog.entities(60, seed: 24, idPrefix: "n")
        changed[0].attributes["year"] = .number(1820)
        changed[1].attributes["price"] = .number(25_000)
        changed[2].attributes["city"] = .string("Lagos")
        changed[3].attributes["size"] = .string("XXL")
        try engine.upsert(changed)
        for entity in changed { live[entity.id] = entity }
        let deleted = (0..<40).map { EntityRef(type: live["e\($0 * 3)"]!.type, id: "e\($0 * 3)") }
        try engine.delete(deleted)
        for ref in deleted { live[ref.id] = nil }
        #expect(engine.snapshot.segments.count > 1)
        try expectLabelSearchesRecount("after writes")
    }

    /// A catalog of more string values than 16-bit slots hold: the first segment's label
    /// searches count its strings straight into the tally (`FacetSlots.countStrings`), later
    /// segments through slot counts; both must be a recount's, before and after writes. A rare
    /// word's few hits are counted pair by pair instead (`FacetTally.countEach`), the first
    /// segment's strings by their own ids and a later one's through its numbers.
    @Test func wideFacetCountsEqualARecountBeforeAndAfterWrites() throws {
        func entities(_ n: Int, seed: UInt64, idPrefix: String) -> [Entity] {
            var rng = SplitMix64(state: seed)
            return (0..<n).map { i in
                var attributes: [String: AttributeValue] = [
                    "maker": .string("maker \(Int.random(in: 0..<300, using: &rng))"),
                    "year": .number(Double(Int.random(in: 1900...2000, using: &rng))),
                ]
                // A hundred attributes of values no other entity has: 70,000 strings at 700 entities.
                for k in 0..<100 { attributes["serial\(k)"] = .string("\(idPrefix)\(i)-\(k)") }
                let word = ["vase", "print", "coin"][i % 3]
                let title = "\(word) item \(i)" + (i % 50 == 0 ? " rare" : "")
                return Entity(type: "object", id: "\(idPrefix)\(i)", title: title, attributes: attributes)
            }
        }
        var live = Dictionary(uniqueKeysWithValues: entities(700, seed: 5, idPrefix: "w").map { ($0.id, $0) })
        let engine = SearchEngine(entities: Array(live.values))
        let first = engine.snapshot.segments[0]
        let numbering = engine.snapshot.numbering
        #expect(first.facetSlots(numbering.segmentNumbers[0], numbering).countsStringsInPlace)
        #expect(numbering.valueLabels.reads(from: first))
        let firstSlots = first.facetSlots(numbering.segmentNumbers[0], numbering).slotCount
        #expect(!SegmentCounts.pays(for: 14, in: first, folding: firstSlots))
        func expectLabelSearchesRecount(_ stage: String) throws {
            for word in ["item", "vase", "rare"] {
                let session = SessionRecord(
                    id: "\(stage)-\(word)", labels: [Label(word)], prints: [], source: .camera, locale: "",
                    pageSize: 10, createdAtUnixMs: 0, expiresAtUnixMs: 1)
                let state = try engine.search(session: session, request: SearchRequest(sessionID: session.id))
                #expect(state.relaxations.isEmpty)
                #expect(state.facets.contains { $0.name == "maker" }, "\(stage) \(word)")
                try expectRecount(
                    state, request: SearchRequest(sessionID: session.id), entities: Array(live.values),
                    numbering: engine.snapshot.numbering
                ) { $0.title.split(separator: " ").contains(Substring(word)) }
            }
        }
        try expectLabelSearchesRecount("start")
        let changed = entities(100, seed: 6, idPrefix: "n")
        try engine.upsert(changed)
        for entity in changed { live[entity.id] = entity }
        let deleted = (0..<40).map { EntityRef(type: "object", id: "w\($0 * 7)") }
        try engine.delete(deleted)
        for ref in deleted { live[ref.id] = nil }
        #expect(engine.snapshot.segments.count > 1)
        try expectLabelSearchesRecount("after writes")
    }

    /// A snapshot of several segments with delete bits: 900 entities, 60 upserted, 40 deleted.
    static func segmentedSnapshot(seed: UInt64, exactHits: Bool = false) throws -> CatalogSnapshot {
        let made = exactHits ? Self.withExactHits : { $0 }
        let engine = SearchEngine(entities: made(RandomCatalog.entities(900, seed: seed)))
        try engine.upsert(made(RandomCatalog.entities(60, seed: seed + 1, idPrefix: "n")))
        try engine.delete((0..<40).map { EntityRef(type: "album", id: "e\($0 * 3)") })
        #expect(engine.snapshot.segments.count > 1)
        // The halves split the documents of all segments evenly, not the last segment's.
        let lower = TwoCores.halves(of: engine.snapshot)[0]
        #expect(abs(Int(lower.upperBound) * 2 - engine.snapshot.documentCount) <= 1)
        return engine.snapshot
    }

    /// `entities` with exact title and tag hits among the others: every fourth tagged with its
    /// title's first word, every ninth titled only "item".
    static func withExactHits(_ entities: [Entity]) -> [Entity] {
        entities.enumerated().map { i, entity in
            var entity = entity
            if i % 4 == 0 { entity.tags = [String(entity.title.split(separator: " ")[0])] }
            if i % 9 == 0 { entity.title = "item" }
            return entity
        }
    }

    @Test func countingInTwoHalvesAnswersAsCountingInOne() throws {
        // Over many pairs the counts are made in two halves on two cores and added: the same
        // facets as one pass, with constraints, without, and as the catalog less the non-hits.
        let snapshot = try Self.segmentedSnapshot(seed: 13)
        let live = snapshot.liveDocs()
        var rng = SplitMix64(state: 77)
        for round in 0..<60 {
            let r = round % 4 == 0 ? SearchRequest(sessionID: "s") : randomRequest("s", &rng)
            let constraints = Constraints(
                types: Set(r.entityTypes), categories: r.categories, filters: r.filters, expression: r.filterExpression)
            // Every live document, all of them as hits, most of them (the complement's path),
            // half of them, a few.
            let kept: [(Int) -> Bool] = [{ _ in true }, { $0 % 7 != 1 }, { $0 % 2 == 0 }, { $0 % 7 == 1 }]
            let keeps = kept[round % kept.count]
            let hits: [Int32]? = round % 5 == 0 ? nil : live.enumerated().filter { keeps($0.offset) }.map(\.element)
            let split = SearchEngine.facets(
                snapshot, docs: hits, constraints: constraints, request: r, splitFrom: 0)
            let whole = SearchEngine.facets(
                snapshot, docs: hits, constraints: constraints, request: r, splitFrom: .max)
            #expect(split == whole, "round \(round)")
            #expect(!whole.facets.isEmpty)
        }
    }

    @Test func aTermsKeptCountsLessItsOtherDocumentsAnswerAsCountingTheHits() throws {
        // Hits that all have a term and are most of its documents are counted as the term's
        // counts (kept per snapshot at its first such search) less its other documents.
        let snapshot = try Self.segmentedSnapshot(seed: 17)
        var rng = SplitMix64(state: 5)
        for term in ["item", "red", "song", "blue"] {
            let docs = TextIndex.liveDocs(term, in: snapshot)
            #expect(docs.count > 100)
            for round in 0..<8 {
                // All of its documents, or a random part of them: most (the kept counts serve),
                // or a third (they do not).
                let keep = round == 0 ? 1 : (round % 4 == 3 ? 0.33 : 0.8)
                let hits = docs.filter { _ in Double.random(in: 0..<1, using: &rng) < keep }
                let request = SearchRequest(sessionID: "s")
                let counted = SearchEngine.facets(
                    snapshot, docs: hits, constraints: .unconstrained, request: request, covering: [],
                    splitFrom: .max)
                for splitFrom in [Int.max, 0] {
                    let fromTerm = SearchEngine.facets(
                        snapshot, docs: hits, constraints: .unconstrained, request: request,
                        covering: ["item", term], splitFrom: splitFrom, termCountsFrom: 0)
                    #expect(fromTerm == counted, "\(term) round \(round)")
                }
            }
            #expect(snapshot.termCounts(term) != nil)
            // A term said to cover hits it cannot (fewer documents than hits) is not used.
            let plain = SearchEngine.facets(
                snapshot, docs: docs, constraints: .unconstrained, request: SearchRequest(sessionID: "s"))
            let claimed = SearchEngine.facets(
                snapshot, docs: docs, constraints: .unconstrained, request: SearchRequest(sessionID: "s"),
                covering: ["zzz-absent"], termCountsFrom: 0)
            #expect(claimed == plain)
        }
        #expect(snapshot.termCounts("zzz-absent") == nil)
    }

    @Test func aTermsOtherLiveDocumentsAreItsLiveDocumentsLessTheHits() throws {
        // Several segments with deletes; hits all of a term's documents, most, a few, none.
        let snapshot = try Self.segmentedSnapshot(seed: 29)
        var rng = SplitMix64(state: 8)
        for term in ["item", "red", "song", "blue"] {
            let docs = TextIndex.liveDocs(term, in: snapshot)
            for keep in [1, 0.9, 0.5, 0.1, 0] {
                let hits = docs.filter { _ in Double.random(in: 0..<1, using: &rng) < keep }
                let others = Set(docs).subtracting(hits).sorted()
                #expect(TextIndex.liveDocs(term, in: snapshot, except: hits) == others, "\(term) \(keep)")
            }
        }
    }

    @Test func theCoresToSplitOnAreTheOnesTheAffinityMaskAllows() throws {
        // Pinned to one core (taskset, a cpuset), a process has one core to split on, however
        // many the machine has: this thread is pinned to its first allowed core for a moment.
        typealias Affinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32
        let get = unsafeBitCast(try #require(dlsym(nil, "sched_getaffinity")), to: Affinity.self)
        let set = unsafeBitCast(try #require(dlsym(nil, "sched_setaffinity")), to: Affinity.self)
        var saved = [UInt64](repeating: 0, count: 16)
        #expect(saved.withUnsafeMutableBytes { get(0, $0.count, $0.baseAddress!) } == 0)
        let allowed = Processors.allowed
        #expect(allowed == saved.reduce(0) { $0 + $1.nonzeroBitCount })
        #expect(TwoCores.available == (allowed > 1))
        let first = try #require(saved.indices.first { saved[$0] != 0 })
        var one = [UInt64](repeating: 0, count: 16)
        one[first] = saved[first] & (~saved[first] + 1)  // its lowest set bit
        #expect(one.withUnsafeMutableBytes { set(0, $0.count, $0.baseAddress!) } == 0)
        let pinned = Processors.allowed
        #expect(saved.withUnsafeMutableBytes { set(0, $0.count, $0.baseAddress!) } == 0)
        #expect(pinned == 1)
    }

    @Test func onlyASearchRunningAloneSplitsAcrossCores() {
        let engine = SearchEngine(entities: RandomCatalog.entities(10, seed: 1))
        let (outer, inner) = engine.counted { outer in (outer, engine.counted { $0 }) }
        #expect(outer)
        #expect(!inner)
        #expect(engine.counted { $0 })  // the count went back down
    }

    @Test func matchingInTwoHalvesAnswersAsMatchingInOne() throws {
        // Labels that must all match, or any of them, over many documents, are matched in the
        // lower and upper half of the document numbers on two cores (each half keeping its best
        // when that is all that is asked): the same candidates, scores, exact hits and matched
        // labels, in the same order, over segments with delete bits.
        let snapshot = try Self.segmentedSnapshot(seed: 17)
        let analyzer = Analyzer()
        let cases: [(mode: Ranker.Mode, ordered: Bool, topK: Int?)] = [
            (.all, false, nil), (.all, true, 25), (.all, true, nil), (.any, false, nil), (.any, true, 10),
            (.any, true, 400), (.all, true, 300),
        ]
        for labels in [["item"], ["red", "item"], ["song"], ["live", "item", "17"], ["blue"], ["nothing"]] {
            let groups = labels.enumerated().map { i, label in
                TextGroup(display: label, terms: analyzer.terms(label), weight: 1 - Float(i) / 10)
            }
            for (mode, ordered, topK) in cases {
                func rank(splitFrom: Int) -> [Candidate] {
                    Ranker.rank(
                        snapshot, groups: groups, mode: mode, prints: [], maxDistance: nil, imageLimit: 0,
                        topK: topK, ordered: ordered, splitFrom: splitFrom) ?? []
                }
                let split = rank(splitFrom: 0)
                let whole = rank(splitFrom: .max)
                #expect(split.map(\.doc) == whole.map(\.doc), "\(labels) \(mode) \(ordered) \(topK ?? 0)")
                #expect(split.map(\.score) == whole.map(\.score), "\(labels)")
                #expect(split.map(\.exact) == whole.map(\.exact), "\(labels)")
                #expect(split.map(\.matchedGroups) == whole.map(\.matchedGroups), "\(labels)")
                if labels != ["nothing"] { #expect(!whole.isEmpty, "\(labels)") }
            }
        }
    }

    @Test func keepingOnlyTheBestMatchesAnswersAsRankingThemAll() throws {
        // A search without constraints keeps its matching documents and only the best few as
        // candidates: the same documents, and the same best candidates in the same order, as
        // every match made a candidate and the best taken, in one pass or two halves, ties and
        // exact hits included, over segments with delete bits.
        let snapshot = try Self.segmentedSnapshot(seed: 23, exactHits: true)
        let analyzer = Analyzer()
        for labels in [
            ["item"], ["red", "item"], ["song"], ["live", "item", "17"], ["blue"], ["nothing"], ["item", "item"],
        ] {
            let groups = labels.enumerated().map { i, label in
                TextGroup(display: label, terms: analyzer.terms(label), weight: 1 - Float(i) / 10)
            }
            let all =
                Ranker.rank(
                    snapshot, groups: groups, mode: .all, prints: [], maxDistance: nil, imageLimit: 0, ordered: false,
                    splitFrom: .max) ?? []
            for k in [1, 7, 20, 500, 5_000] {
                let expected = Array(Ranker.sorted(all).prefix(k))
                for splitFrom in [0, Int.max] {
                    let kept = try #require(
                        Ranker.bestMatchingAll(snapshot, groups: groups, k: k, splitFrom: splitFrom))
                    #expect(kept.docs == all.map(\.doc), "\(labels) \(k)")
                    #expect(kept.best.map(\.doc) == expected.map(\.doc), "\(labels) \(k) \(splitFrom)")
                    #expect(kept.best.map(\.score) == expected.map(\.score), "\(labels) \(k)")
                    #expect(kept.best.map(\.exact) == expected.map(\.exact), "\(labels) \(k)")
                    #expect(kept.best.map(\.matchedGroups) == expected.map(\.matchedGroups), "\(labels) \(k)")
                    #expect(kept.best.map(\.coverage) == expected.map(\.coverage), "\(labels) \(k)")
                }
            }
            if labels.count < 3 && labels != ["nothing"] {
                #expect(!all.isEmpty, "\(labels)")
                #expect(all.contains(where: \.exact) && all.contains { !$0.exact }, "\(labels)")
            }
        }
        #expect(Ranker.bestMatchingAll(snapshot, groups: [], k: 10) == nil)
    }

    @Test func aSearchKeepingOnlyItsBestPagesAsOneRankingAll() throws {
        // Every page of a search that keeps only its best matches (no constraints, relevance
        // order) equals the page cut from all of them ranked: the same results, totals and
        // facets, to the last page; "item" (in every title) pages past the most a search keeps
        // only the best of.
        let engine = SearchEngine(entities: Self.withExactHits(RandomCatalog.entities(3_000, seed: 31)))
        engine.limitEvaluationCache(toBytes: 0)
        for label in ["item", "red song", "blue"] {
            let session = SessionRecord(
                id: "s-\(label)", labels: [Label(label)], prints: [], source: .camera, locale: "", pageSize: 50,
                createdAtUnixMs: 0, expiresAtUnixMs: .max)
            var request = SearchRequest(sessionID: session.id)
            request.pageSize = 50
            var pages = 0
            while true {
                let state = try engine.search(session: session, request: request)
                let needed = (pages + 1) * 50
                let all = engine.evaluate(engine.snapshot, session: session, request: request, needed: .max)
                #expect(state.totalHits == all.total, "\(label) page \(pages)")
                #expect(state.facets == all.facets, "\(label) page \(pages)")
                let expected = all.hits.dropFirst(pages * 50).prefix(50).map(\.doc)
                let shown = state.results.map { engine.snapshot.doc(of: $0.entity) }
                #expect(shown == expected.map { Optional($0) }, "\(label) page \(pages) (needed \(needed))")
                pages += 1
                if state.nextPageToken.isEmpty { break }
                request.pageToken = state.nextPageToken
            }
            if label == "item" { #expect(pages > SearchEngine.mostBestKept / 50, "\(pages) pages") }
        }
    }

    @Test(arguments: ["item", "red", "song", "17"])
    func facetCountsOfALabelOnLiveUpdatedSnapshotsEqualABruteForceRecount(label: String) throws {
        // "item" is in every title: most hits are counted as the catalog less the non-hits. "17"
        // is in a few: their pairs are counted one by one, not per value id.
        let engine = SearchEngine(entities: RandomCatalog.entities(600, seed: 11))
        var rng = SplitMix64(state: 99)
        let session = SessionRecord(
            id: "s", labels: [Label(label)], prints: [], source: .camera, locale: "", pageSize: 10,
            createdAtUnixMs: 0, expiresAtUnixMs: 1)
        var compared = 0
        for round in 0..<12 {
            // Replace, add and delete entities, leaving several segments with delete bits.
            try engine.upsert(
                RandomCatalog.entities(30, seed: UInt64(500 + round), idPrefix: round % 3 == 0 ? "e" : "n\(round)-"))
            try engine.delete((0..<7).map { EntityRef(type: "album", id: "e\(round * 7 + $0)") })
            if round == 6 { engine.mergeUntilSettled() }
            let snapshot = engine.snapshot
            #expect(snapshot.segments.count > 1 || round == 6)
            let live = snapshot.entities
            for _ in 0..<12 {
                var r = randomRequest("s", &rng)
                if Int.random(in: 0..<3, using: &rng) == 0 { r = SearchRequest(sessionID: "s") }
                let state = try engine.search(session: session, request: r)
                guard state.relaxations.isEmpty else { continue }
                compared += 1
                try expectRecount(state, request: r, entities: live, numbering: snapshot.numbering) { entity in
                    Analyzer().terms(entity.title).contains(label)
                }
            }
        }
        #expect(compared > 50)
    }

    @Test func laterPagesAreCutFromTheFirstPagesEvaluationInTheSameOrder() throws {
        let engine = SearchEngine(entities: RandomCatalog.entities(1500, seed: 21))
        let session = SessionRecord(
            id: "pages", labels: [Label("item")], prints: [], source: .camera, locale: "", pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: 1)
        let request = SearchRequest(sessionID: "pages", sort: Sort(key: .attribute, attribute: "year"))
        let expected = engine.evaluate(engine.snapshot, session: session, request: request).hits.map(\.doc)
        var seen = [EntityRef]()
        var state = try engine.search(session: session, request: request)
        let first = state
        seen += state.results.map(\.entity)
        let before = engine.evaluations.hits
        var pages = 1
        while !state.nextPageToken.isEmpty {
            var next = request
            next.pageToken = state.nextPageToken
            state = try engine.search(session: session, request: next)
            #expect(state.facets == first.facets)
            #expect(state.totalHits == first.totalHits)
            seen += state.results.map(\.entity)
            pages += 1
        }
        #expect(
            seen
                == expected.map { doc in
                    let entity = engine.snapshot.entity(at: doc)
                    return EntityRef(type: entity.type, id: entity.id)
                })
        // Page 2 comes from page 1's evaluation; page 3 evaluates again, ordering 200 hits more
        // than it needs, and so on.
        #expect(pages == 75)
        #expect(engine.evaluations.hits - before >= 60)
        #expect(engine.evaluations.hits - before < pages - 1)
    }

    @Test func onlyAPageWithANextOneKeepsItsEvaluation() throws {
        let engine = SearchEngine(entities: RandomCatalog.entities(600, seed: 4))
        func search(_ id: String, label: String, pageSize: Int, token: String = "") throws -> SearchState {
            let session = SessionRecord(
                id: id, labels: [Label(label)], prints: [], source: .camera, locale: "", pageSize: pageSize,
                createdAtUnixMs: 0, expiresAtUnixMs: 1)
            return try engine.search(session: session, request: SearchRequest(sessionID: id, pageToken: token))
        }
        // All hits on one page ("17" is in one title): no token will ask for this evaluation
        // again, so none is kept.
        let whole = try search("whole", label: "17", pageSize: 20)
        #expect(whole.totalHits >= 1 && whole.totalHits <= 20)
        #expect(whole.nextPageToken.isEmpty)
        #expect(engine.evaluations.count == 0)
        // A first page with a next one keeps it, and the next page is cut from it.
        let first = try search("paged", label: "item", pageSize: 2)
        #expect(!first.nextPageToken.isEmpty)
        #expect(engine.evaluations.count == 1)
        _ = try search("paged", label: "item", pageSize: 2, token: first.nextPageToken)
        #expect(engine.evaluations.hits == 1)
    }

    @Test func withoutRoomForEvaluationsEveryPageIsEvaluatedAndAnswersTheSame() throws {
        let cached = SearchEngine(entities: RandomCatalog.entities(600, seed: 4))
        let uncached = SearchEngine(entities: RandomCatalog.entities(600, seed: 4))
        uncached.limitEvaluationCache(toBytes: 0)
        // A budget that holds a few evaluations: older ones are dropped as new ones come.
        cached.limitEvaluationCache(toBytes: 64 << 10)
        for label in ["item", "red", "blue", "song", "green", "live"] {
            let session = SessionRecord(
                id: label, labels: [Label(label)], prints: [], source: .camera, locale: "", pageSize: 7,
                createdAtUnixMs: 0, expiresAtUnixMs: 1)
            var token = ""
            repeat {
                let request = SearchRequest(sessionID: label, pageToken: token)
                let a = try cached.search(session: session, request: request)
                var b = try uncached.search(session: session, request: request)
                b.nextPageToken = a.nextPageToken  // tokens name each engine's own generation
                #expect(a == b)
                token = a.nextPageToken
            } while !token.isEmpty
        }
        #expect(uncached.evaluations.hits == 0)
        #expect(cached.evaluations.hits > 0)
    }

    @Test func aHundredPageWalkUnderConcurrentUpdatesNeverRepeatsOrSkips() async throws {
        let engine = SearchEngine(entities: RandomCatalog.entities(1000, seed: 3))
        let session = SessionRecord(
            id: "walk", labels: [], prints: [], source: .camera, locale: "", pageSize: 10, createdAtUnixMs: 0,
            expiresAtUnixMs: 1)
        let request = SearchRequest(sessionID: "walk", sort: Sort(key: .attribute, attribute: "year"), pageSize: 10)
        let first = try engine.search(session: session, request: request)
        let total = first.totalHits
        let updater = Task {
            var round = 0
            while !Task.isCancelled && round < 400 {
                // Replace, insert and delete entities: every page after the first sees a newer catalog.
                try engine.upsert(
                    RandomCatalog.entities(20, seed: UInt64(100 + round), idPrefix: round % 2 == 0 ? "e" : "n\(round)-")
                )
                try engine.delete((0..<5).map { EntityRef(type: "album", id: "e\(round * 5 + $0)") })
                round += 1
                await Task.yield()
            }
            return round
        }
        var seen = [EntityRef]()
        seen.append(contentsOf: first.results.map(\.entity))
        var token = first.nextPageToken
        var pages = 1
        while !token.isEmpty {
            var next = request
            next.pageToken = token
            let state = try engine.search(session: session, request: next)
            #expect(state.totalHits == total)
            #expect(state.catalogVersion == first.catalogVersion)
            seen.append(contentsOf: state.results.map(\.entity))
            token = state.nextPageToken
            pages += 1
            await Task.yield()
        }
        updater.cancel()
        let rounds = try await updater.value
        #expect(pages == 100)
        #expect(rounds > 0)
        #expect(Set(seen).count == seen.count, "duplicates")
        #expect(seen.count == total, "skips")
        #expect(engine.snapshot.version > first.catalogVersion)
        // A new walk sees the updated catalog.
        let fresh = try engine.search(session: session, request: request)
        #expect(fresh.catalogVersion == engine.snapshot.version)
    }
}
