// Sheet query, search-with-facets, capture, page 2 and exact vector scan timings on a catalog.
//
//     bench/gen-catalog && swift run -c release --package-path bench/search search-bench \
//         bench/out/catalog-100k.jsonl bench/out/queries.jsonl
//
// Any catalog and query file in bench/gen-catalog's formats will do (bench/gen-catalog-shop,
// bench/gen-catalog-sparse). judgements.json and peer-facets.json are read from the queries
// file's folder (bench/search-peers.py writes them there), and every row is written to
// search-bench.json in the same folder as {"n", "p50", "p99", "worst"} in µs.
//
// Every search and capture lists every attribute facet (maxFacets: .max), as the peers' faceted
// searches count them all; a client that does not say gets the 20 that count the most hits.
import Foundation
@_spi(Benchmarks) import SearchSession

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func micros(_ d: Duration) -> Double {
    Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6
}

nonisolated(unsafe) var rows = [String: [String: Double]]()
nonisolated(unsafe) var resultsPath = ""

func record(_ name: String, _ unsorted: [Double]) {
    let samples = unsorted.sorted()
    guard let worst = samples.last else {
        print(String(format: "%-44@ n=     0", name as NSString))
        return
    }
    let p50 = percentile(samples, 0.5)
    let p99 = percentile(samples, 0.99)
    print(
        String(
            format: "%-44@ n=%6d  p50 %8.1f µs  p99 %8.1f µs  worst %9.1f µs  mean %8.1f µs", name as NSString,
            samples.count, p50, p99, worst, samples.reduce(0, +) / Double(samples.count)))
    rows[name] = ["n": Double(samples.count), "p50": p50, "p99": p99, "worst": worst]
    writeResults()
    fflush(nil)  // rows show as they finish, also through a pipe
}

func writeResults() {
    if let data = try? JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys]) {
        _ = FileManager.default.createFile(atPath: resultsPath, contents: data)
    }
}

func measure(_ name: String, rounds: Int, _ body: (Int) throws -> Void, count: Int) rethrows {
    for i in 0..<min(count, 50) { try body(i) }  // warm-up
    var samples = [Double]()
    for _ in 0..<rounds {
        for i in 0..<count {
            let start = ContinuousClock.now
            try body(i)
            samples.append(micros(ContinuousClock.now - start))
        }
    }
    record(name, samples)
}

/// Times an async call the way a server's handler makes it: `body` is not isolated to the main
/// actor, and this function runs on the global executor, so a sample is the call and not two
/// hops between the main thread and the pool.
@concurrent
func measureAsync(_ name: String, rounds: Int, _ body: @Sendable (Int) async throws -> Void, count: Int) async rethrows {
    for i in 0..<min(count, 50) { try await body(i) }  // warm-up
    var samples = [Double]()
    for _ in 0..<rounds {
        for i in 0..<count {
            let start = ContinuousClock.now
            try await body(i)
            samples.append(micros(ContinuousClock.now - start))
        }
    }
    record(name, samples)
}

/// The resident set of this process, from /proc/self/status (VmRSS), in KiB.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

var arguments = CommandLine.arguments
// --rounds N: timed passes over the queries per row (default 3).
var rounds = 3
if let i = arguments.firstIndex(of: "--rounds"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 {
    rounds = n
    arguments.removeSubrange(i...(i + 1))
}
// --max-facets N: the attribute facets the capture-loop and capture-slowest modes list (default:
// all, as the timed rows; 0 is the service's default, as a gRPC client that does not say gets).
var captureMaxFacets = Int.max
if let i = arguments.firstIndex(of: "--max-facets"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n >= 0 {
    captureMaxFacets = n
    arguments.removeSubrange(i...(i + 1))
}
let catalogPath = arguments.count > 1 ? arguments[1] : "bench/out/catalog-100k.jsonl"
let queriesPath = arguments.count > 2 ? arguments[2] : "bench/out/queries.jsonl"

var start = ContinuousClock.now
let file = try CatalogLoader.load(path: catalogPath)
print("load: \(file.entities.count) entities, \(file.errors.count) bad lines in \(ContinuousClock.now - start)")
start = ContinuousClock.now
let engine = SearchEngine(catalog: file)
// Every row measures the evaluation itself: no page reuses another call's (the gRPC rows of
// bench/rpc/capture-search show the server's evaluation cache).
engine.limitEvaluationCache(toBytes: 0)
let buildTime = ContinuousClock.now - start
print("index build: \(buildTime)")
let loadedRSS = residentKiB()
print(String(format: "RSS after load and index build: %.1f MiB (VmRSS)", Double(loadedRSS) / 1024))
resultsPath = (queriesPath as NSString).deletingLastPathComponent + "/search-bench.json"
rows["index build"] = ["seconds": micros(buildTime) / 1e6]
rows["rss after load"] = ["MiB": Double(loadedRSS) / 1024]

struct Query: Decodable {
    struct L: Decodable {
        var text: String
        var confidence: Float
    }
    var labels: [L]
    var category: String
}
let queries = try String(contentsOfFile: queriesPath, encoding: .utf8).split(separator: "\n").map {
    try JSONDecoder().decode(Query.self, from: Data($0.utf8))
}
let descriptors = queries.map { Descriptor(labels: $0.labels.map { Label($0.text, confidence: $0.confidence) }) }

if arguments.count > 3 && arguments[3] == "derive" {
    // What a snapshot derives once (facet numbering, counts of every live document, top
    // categories): the first search after a start pays it; after a merge, the merge derives it
    // behind searches (before, the first search after each merge paid it too).
    let start = ContinuousClock.now
    engine.warmUp()
    engine.waitUntilIdle()
    print("derive: \(ContinuousClock.now - start)")
    exit(0)
}
if arguments.count > 3 && arguments[3] == "upsert-loop" {
    // Searches first, so the snapshot has derived counts (every live document, kept term
    // counts) that each upsert carries over.
    for (i, d) in descriptors.enumerated() {
        let session = SessionRecord(
            id: "u\(i)", labels: d.labels, prints: [], source: .camera, locale: "", pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
        _ = try engine.search(session: session, request: SearchRequest(sessionID: session.id, maxFacets: .max))
    }
    // The number of upserts may follow (default 8); past the catalog's size they wrap around.
    let upserts = arguments.count > 4 ? Int(arguments[4]) ?? 8 : 8
    for round in 0..<upserts {
        let first = (round * 100) % max(file.entities.count - 100, 1)
        let start = ContinuousClock.now
        try engine.upsert(Array(file.entities[first..<(first + 100)]).map { e in
            var e = e
            e.title += " updated"
            return e
        })
        print("upsert \(round): \(ContinuousClock.now - start)")
    }
    exit(0)
}
/// Each Capture's time (µs, ascending) of `front` going round the queries for `seconds`.
func timedCaptures(_ front: SearchSessions, seconds: Double) async throws -> [Double] {
    var samples = [Double]()
    let end = ContinuousClock.now + .seconds(seconds)
    var i = 0
    while ContinuousClock.now < end {
        let start = ContinuousClock.now
        _ = try await front.capture(descriptors[i % descriptors.count], pageSize: 20, maxFacets: .max)
        samples.append(micros(ContinuousClock.now - start))
        i += 1
    }
    return samples.sorted()
}
if arguments.count > 3 && arguments[3] == "segments-loop" {
    // Captures on a snapshot of many small segments, as a write load leaves them between
    // merges: the catalog, then N upserts of 100 other entities each (the number follows;
    // merges held), then three timed passes of 8 s over the queries; the third is the figure.
    let front = SearchSessions(engine: engine, store: InMemorySessionStore())
    let batches = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
    engine.holdMerges()
    for round in 0..<batches {
        let batch = (0..<100).map { k -> Entity in
            var e = file.entities[(round * 100 + k) % file.entities.count]
            e.subtitle = "load \(round)"
            return e
        }
        _ = try engine.upsert(batch)
    }
    engine.waitUntilIdle()
    for label in ["first", "second", "third"] {
        let samples = try await timedCaptures(front, seconds: 8)
        print(String(format: "%@ pass, %d segments: n=%d p50 %.0f µs p99 %.0f µs worst %.0f µs", label,
            engine.segmentCount, samples.count, percentile(samples, 0.5), percentile(samples, 0.99),
            samples.last ?? 0))
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "write-loop" {
    // Captures while another thread upserts 100 entities every 100 ms (as bench/rpc/write-load
    // does over gRPC), then without writes: the engine's share of the write-load ratio.
    // With a state directory as the sixth argument, the engine is `serve`'s: mapped segments,
    // merges written there, every write fsynced to the catalog log, sessions in SQLite.
    var opened = engine
    var store: any SessionStore = InMemorySessionStore()
    if arguments.count > 5 {
        let state = arguments[5]
        try FileManager.default.createDirectory(atPath: state + "/index", withIntermediateDirectories: true)
        opened = try SearchEngine.open(
            catalogAt: catalogPath, log: CatalogLog(path: state + "/catalog-log.sqlite"),
            index: IndexDirectory(path: state + "/index"),
            retention: .seconds(Int(ProcessInfo.processInfo.environment["RETENTION"] ?? "900") ?? 900)).0
        // "memory" after it keeps sessions in memory, to tell the two disks' shares apart.
        if arguments.count <= 6 || arguments[6] != "memory" {
            store = try SQLiteSessionStore(path: state + "/sessions.sqlite")
        }
    }
    let engine = opened
    let front = SearchSessions(engine: engine, store: store)
    let seconds = arguments.count > 4 ? Double(arguments[4]) ?? 10 : 10
    func run(_ label: String) async throws {
        let samples = try await timedCaptures(front, seconds: seconds)
        print(String(format: "%@: n=%d p50 %.0f µs p99 %.0f µs worst %.0f µs", label, samples.count,
            percentile(samples, 0.5), percentile(samples, 0.99), samples.last ?? 0))
    }
    try await run("idle")
    func rss() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").filter { $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile") }
            .joined(separator: "; ")
    }
    print("after idle:", rss())
    let writer = Thread {
        var round = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            let batch = (0..<100).map { k -> Entity in
                var e = file.entities[(round * 100 + k) % file.entities.count]
                e.subtitle = "load \(round)"
                return e
            }
            try? engine.upsert(batch)
            round += 1
            Thread.sleep(until: Date(timeIntervalSinceNow: 0.1))
        }
    }
    writer.start()
    try await run("writes")
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    print(status.split(separator: "\n").filter { $0.hasPrefix("Rss") || $0.hasPrefix("VmRSS") }.joined(separator: "; "))
    if ProcessInfo.processInfo.environment["MALLOC_STATS"] != nil, let symbol = dlsym(nil, "malloc_stats") {
        unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)()
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "slowest" {
    // Which queries make the tail: each session search timed (best of 3), the slowest printed
    // with their labels and hit counts.
    var timed = [(Duration, Int, Int)]()
    for (i, d) in descriptors.enumerated() {
        var best = Duration.seconds(1000)
        var total = 0
        for _ in 0..<3 {
            let session = SessionRecord(
                id: "s\(i)", labels: d.labels, prints: [], source: .camera, locale: "", pageSize: 20,
                createdAtUnixMs: 0, expiresAtUnixMs: .max)
            let start = ContinuousClock.now
            total =
                try engine.search(session: session, request: SearchRequest(sessionID: session.id, maxFacets: .max))
                .totalHits
            best = min(best, ContinuousClock.now - start)
        }
        timed.append((best, i, total))
    }
    for (duration, i, total) in timed.sorted(by: { $0.0 > $1.0 }).prefix(Int(arguments.count > 4 ? arguments[4] : "15") ?? 15) {
        print(duration, "hits", total, queries[i].labels.map(\.text))
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "filter-loop" {
    // For profilers: the category + year filter row, many times.
    for round in 0..<(arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10) {
        for (i, d) in descriptors.enumerated() {
            let session = SessionRecord(
                id: "f\(i)", labels: d.labels, prints: [], source: .camera, locale: "", pageSize: 20,
                createdAtUnixMs: 0, expiresAtUnixMs: .max)
            _ = try engine.search(
                session: session,
                request: SearchRequest(
                    sessionID: session.id, categories: [queries[i].category],
                    filters: [.range("year", min: 1980, max: 2000)], maxFacets: .max))
        }
        print("round \(round)")
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "search-loop" {
    // For profilers: only the session search, many times (10 rounds, or the number given after it).
    for round in 0..<(arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10) {
        for (i, d) in descriptors.enumerated() {
            let session = SessionRecord(
                id: "p\(i)", labels: d.labels, prints: [], source: .camera, locale: "", pageSize: 20,
                createdAtUnixMs: 0, expiresAtUnixMs: .max)
            _ = try engine.search(session: session, request: SearchRequest(sessionID: session.id, maxFacets: .max))
        }
        print("round \(round)")
    }
    exit(0)
}

// --cold: one-loop evicts the caches before each search (writes 48 MB, not timed), as a search
// among others' finds them: what the slowest Captures of a mixed load cost, for profilers.
var coldSearches = false
if let i = arguments.firstIndex(of: "--cold") {
    coldSearches = true
    arguments.remove(at: i)
}
/// Writes more memory than the last-level cache holds, so the next search reads cold.
@inline(never) func evictCaches(_ junk: UnsafeMutableRawBufferPointer, round: Int) {
    junk.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: round))
}
if arguments.count > 5 && arguments[3] == "one-loop" {
    // For profilers: one query's session search (its index in the queries file, or `all` for
    // each in turn), many times.
    let indices = arguments[4] == "all" ? Array(descriptors.indices) : [Int(arguments[4]) ?? 0]
    let sessions = indices.map { i in
        SessionRecord(
            id: "o\(i)", labels: descriptors[i].labels, prints: [], source: .camera, locale: "", pageSize: 20,
            createdAtUnixMs: 0, expiresAtUnixMs: .max)
    }
    // One search first: what a snapshot derives on its first search (the facet numbering) is
    // not the query's cost. A profiler attached from here on sees only repeats.
    func search(_ session: SessionRecord) throws {
        _ = try engine.search(session: session, request: SearchRequest(sessionID: session.id, maxFacets: captureMaxFacets))
    }
    for session in sessions { try search(session) }
    print("warmed up")
    // Time for a profiler that waits for that line to attach (callgrind's vgdb takes a second).
    sleep(3)
    let junk = UnsafeMutableRawBufferPointer.allocate(byteCount: coldSearches ? 48 << 20 : 0, alignment: 64)
    var searching = Duration.zero
    let rounds = Int(arguments[5]) ?? 100
    for round in 0..<rounds {
        for session in sessions {
            if coldSearches { evictCaches(junk, round: round) }
            let start = ContinuousClock.now
            try search(session)
            searching += ContinuousClock.now - start
        }
    }
    let name = indices.count == 1 ? "query \(indices[0]) \(queries[indices[0]].labels.map(\.text))" : "every query"
    print("\(name): \(searching / (rounds * sessions.count)) per search\(coldSearches ? " (cold)" : "")")
    exit(0)
}
if arguments.count > 3 && arguments[3] == "sheet-loop" {
    // For profilers: the sheet query, many times.
    for round in 0..<(arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10) {
        for d in descriptors { _ = try engine.query(QueryRequest(descriptor: d)) }
        print("round \(round)")
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "write-builds" {
    // The segment a write of 100 entities builds, for consecutive batches of the catalog's first
    // N entities (default 20,000), three rounds; the checksum of the bytes built tells whether a
    // change to the builder built the same segments.
    let count = min(arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000, file.entities.count)
    let entities = Array(file.entities[0..<count])
    var samples = [Double]()
    var checksums = Set<UInt64>()
    for _ in 0..<3 {
        let (times, checksum) = engine.timeWriteBuilds(of: entities, batch: 100)
        samples += times.map(micros)
        checksums.insert(checksum)
    }
    record("write build of 100", samples)
    print("checksum of the bytes built: \(checksums.map { String($0, radix: 16) }.joined(separator: ", "))")
    exit(0)
}
if arguments.count > 3 && arguments[3] == "merge-ways" {
    // A merge's build of N documents (default 20,000) of the catalog's segment, by number (as
    // merges do) and from entities read back (as they did), alternating, five rounds.
    let documents = arguments.count > 4 ? Int(arguments[4]) ?? 20_000 : 20_000
    let (byNumberTimes, fromEntitiesTimes, same) = engine.timeMergeWays(documents: documents, rounds: 5)
    let (byNumber, fromEntities) = (byNumberTimes.map(micros), fromEntitiesTimes.map(micros))
    func row(_ micros: [Double]) -> String { micros.map { String(format: "%.0f", $0 / 1000) }.joined(separator: ", ") }
    print("merge of \(documents) documents, ms per round: by number \(row(byNumber)); from entities \(row(fromEntities))")
    print(String(format: "median ratio (from entities ÷ by number): %.2f; same bytes: %@",
        percentile(fromEntities.sorted(), 0.5) / percentile(byNumber.sorted(), 0.5), same ? "yes" : "NO"))
    exit(0)
}
if arguments.count > 3 && arguments[3] == "capture-slowest" {
    // Which captures are slow, and what they have in common: each capture's fastest of the
    // rounds (the machine's noise mostly adds), the slowest 25 with their hits and relaxations.
    let front = SearchSessions(engine: engine, store: InMemorySessionStore())
    var best = [Double](repeating: .infinity, count: descriptors.count)
    var states = [SearchState?](repeating: nil, count: descriptors.count)
    for _ in 0..<rounds {
        for (i, d) in descriptors.enumerated() {
            let start = ContinuousClock.now
            let state = try await front.capture(d, pageSize: 20, maxFacets: captureMaxFacets)
            best[i] = min(best[i], micros(ContinuousClock.now - start))
            states[i] = state
        }
    }
    let sorted = best.sorted()
    print(String(format: "capture, fastest of %d rounds: p50 %.0f µs p99 %.0f µs worst %.0f µs", rounds,
        percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last ?? 0))
    for i in best.indices.sorted(by: { best[$0] > best[$1] }).prefix(25) {
        let state = states[i]!
        let labels = descriptors[i].labels.map(\.text).joined(separator: " | ")
        let relaxed = state.relaxations.map { "\($0.kind)" }.joined(separator: ",")
        let pairs = state.facets.reduce(0) { $0 + $1.values.count }
        print(String(format: "%7.0f µs  hits %6d  facets %2d/%4d values  %@  [%@]", best[i], state.totalHits,
            state.facets.count, pairs, relaxed.isEmpty ? "strict" : relaxed, labels))
    }
    exit(0)
}
if arguments.count > 3 && arguments[3] == "capture-loop" {
    // For profilers: captures through the session front (in-memory store), many times.
    // At the end, the CPU time of the process per capture (both cores), for A/B comparisons on a
    // machine whose other load moves wall times: the first round (which makes what a snapshot
    // derives) is left out.
    let front = SearchSessions(engine: engine, store: InMemorySessionStore())
    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let rounds = arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10
    var startCPU = cpuSeconds()
    var startWall = ContinuousClock.now
    for round in 0..<rounds {
        for d in descriptors { _ = try await front.capture(d, pageSize: 20, maxFacets: captureMaxFacets) }
        print("round \(round)")
        if round == 0 {
            startCPU = cpuSeconds()
            startWall = ContinuousClock.now
        }
    }
    let captures = Double(max(rounds - 1, 1) * descriptors.count)
    print(String(format: "CPU per capture %.0f µs, wall %.0f µs (rounds 2-%d)", (cpuSeconds() - startCPU) / captures * 1e6,
        micros(ContinuousClock.now - startWall) / captures, rounds))
    exit(0)
}

/// The values whose counts differ, facet by facet (at most five per facet), as "facet: value ours/peers".
func facetDifferences(_ ours: [String: [String: Int]], _ peers: [String: [String: Int]]) -> String {
    var lines = [String]()
    for name in Set(ours.keys).union(peers.keys).sorted() {
        let mine = ours[name] ?? [:]
        let theirs = peers[name] ?? [:]
        let differing = Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }
        for value in differing.prefix(5) {
            lines.append("\(name): \(value) \(mine[value].map(String.init) ?? "-")/\(theirs[value].map(String.init) ?? "-")")
        }
        if differing.count > 5 { lines.append("\(name): \(differing.count - 5) more values differ") }
    }
    return lines.joined(separator: "; ")
}

var hits = 0
try measure("sheet query (labels, limit 10)", rounds: rounds, { i in
    hits += try engine.query(QueryRequest(descriptor: descriptors[i])).count
}, count: descriptors.count)

// nDCG@10 against bench/search-peers.py's judgements, when present.
let judgementsPath = (queriesPath as NSString).deletingLastPathComponent + "/judgements.json"
if let data = FileManager.default.contents(atPath: judgementsPath),
    let judgements = try? JSONDecoder().decode([[String: Int]].self, from: data), judgements.count == descriptors.count
{
    var total = 0.0
    for (i, d) in descriptors.enumerated() {
        let ranked = try engine.query(QueryRequest(descriptor: d)).map { "\($0.entity.type)/\($0.entity.id)" }
        let grades = judgements[i]
        var dcg = 0.0
        for (k, r) in ranked.prefix(10).enumerated() { dcg += (pow(2, Double(grades[r] ?? 0)) - 1) / log2(Double(k + 2)) }
        var idcg = 0.0
        for (k, g) in grades.values.sorted(by: >).prefix(10).enumerated() { idcg += (pow(2, Double(g)) - 1) / log2(Double(k + 2)) }
        total += idcg > 0 ? dcg / idcg : 0
    }
    print(String(format: "sheet nDCG@10 %.4f (judgements from bench/search-peers.py)", total / Double(descriptors.count)))
}

let sessions = descriptors.enumerated().map { i, d in
    SessionRecord(
        id: "bench-\(i)", labels: d.labels, prints: [], source: .camera, locale: "", pageSize: 20,
        createdAtUnixMs: 0, expiresAtUnixMs: .max)
}
// The peers' facet counts (bench/search-peers.py) for the same AND-of-labels search: ours must be equal,
// or the timings below would not compare the same work. Relaxed searches (no hit for all labels)
// answer a different question and are left out.
let peerFacetsPath = (queriesPath as NSString).deletingLastPathComponent + "/peer-facets.json"
if let data = FileManager.default.contents(atPath: peerFacetsPath),
    let peerFacets = try? JSONDecoder().decode([[String: [String: Int]]?].self, from: data),
    peerFacets.count == sessions.count
{
    var equal = 0
    var relaxed = 0
    // A query whose hits have more values of one attribute than tantivy answers at once has no
    // reference counts (null).
    let unreferenced = peerFacets.filter { $0 == nil }.count
    var differences = [String]()
    for (i, session) in sessions.enumerated() {
        guard let reference = peerFacets[i] else { continue }
        // Every value, not the first hundred a facet lists by default.
        let state = try engine.search(
            session: session, request: SearchRequest(sessionID: session.id, maxFacetValues: .max, maxFacets: .max))
        if !state.relaxations.isEmpty {
            relaxed += 1
            continue
        }
        var ours = [String: [String: Int]]()
        for f in state.facets where !f.values.isEmpty {
            ours[f.name] = Dictionary(uniqueKeysWithValues: f.values.map { ($0.value, $0.count) })
        }
        if ours == reference {
            equal += 1
        } else if differences.count < 5 {
            differences.append("query \(i) \(session.labels.map(\.text)): " + facetDifferences(ours, reference))
        }
    }
    print(
        "facets equal to the peers' on \(equal) of \(sessions.count - relaxed - unreferenced) searches "
            + "(\(relaxed) relaxed, \(unreferenced) without reference counts, not compared)")
    for difference in differences { print("  differs: \(difference)") }
}

try measure("search page 1 + facets", rounds: rounds, { i in
    _ = try engine.search(session: sessions[i], request: SearchRequest(sessionID: sessions[i].id, maxFacets: .max))
}, count: sessions.count)
// The same row split: searches whose labels all match (the peers' AND query has hits) and those
// relaxed to avoid a blank screen (the peers answer those with nothing at all).
var strict = [Int]()
var relaxed = [Int]()
for (i, session) in sessions.enumerated() {
    let state = try engine.search(session: session, request: SearchRequest(sessionID: session.id, maxFacets: .max))
    if state.relaxations.isEmpty { strict.append(i) } else { relaxed.append(i) }
}
try measure("search page 1 + facets, strict hits", rounds: rounds, { i in
    _ = try engine.search(
        session: sessions[strict[i]], request: SearchRequest(sessionID: sessions[strict[i]].id, maxFacets: .max))
}, count: strict.count)
try measure("search page 1 + facets, relaxed", rounds: rounds, { i in
    _ = try engine.search(
        session: sessions[relaxed[i]], request: SearchRequest(sessionID: sessions[relaxed[i]].id, maxFacets: .max))
}, count: relaxed.count)
// "More results" through the session front: capture stores a fresh session (in memory) and
// answers its first page; page 2 follows its next-page token.
let front = SearchSessions(engine: engine, store: InMemorySessionStore())
var pageTwo = [SearchRequest]()
for d in descriptors {
    let state = try await front.capture(d, pageSize: 20, maxFacets: .max)
    if !state.nextPageToken.isEmpty {
        pageTwo.append(SearchRequest(sessionID: state.sessionID, pageToken: state.nextPageToken, maxFacets: .max))
    }
}
try await measureAsync("capture (search page 1 of a fresh session)", rounds: rounds, { [descriptors] i in
    _ = try await front.capture(descriptors[i], pageSize: 20, maxFacets: .max)
}, count: descriptors.count)
print("  (\(pageTwo.count) of \(descriptors.count) captures have a page 2)")
try await measureAsync("search page 2", rounds: rounds, { [pageTwo] i in
    _ = try await front.search(pageTwo[i])
}, count: pageTwo.count)

try measure("search + category + year filter", rounds: rounds, { i in
    _ = try engine.search(
        session: sessions[i],
        request: SearchRequest(
            sessionID: sessions[i].id, categories: [queries[i].category],
            filters: [.range("year", min: 1980, max: 2000)], maxFacets: .max))
}, count: sessions.count)

var rng = SystemRandomNumberGenerator()
let printDimension = file.entities.first { $0.prints.contains { $0.model == "bench-128" } } != nil
let printQueries = (0..<100).map { _ in
    FeaturePrint(model: "bench-128", values: (0..<128).map { _ in Float.random(in: -1...1, using: &rng) })
}
if printDimension {
    try measure("exact scan × 128 (top 10)", rounds: rounds, { i in
        _ = try engine.query(QueryRequest(descriptor: Descriptor(featurePrint: printQueries[i]), maxDistance: 2))
    }, count: printQueries.count)
} else {
    print("exact scan: no bench-128 prints in this catalog, skipped")
}

// The built-in print of a 5K BGRA screenshot.
let w = 5120
let h = 2880
var bytes = [UInt8](repeating: 0, count: w * h * 4)
for i in stride(from: 0, to: bytes.count, by: 7) { bytes[i] = UInt8(truncatingIfNeeded: i / 4096) }
let screenshot = PixelBuffer(width: w, height: h, bytesPerRow: w * 4, format: .bgra8, bytes: bytes)
let small = PixelBuffer(width: 640, height: 480, bytesPerRow: 640 * 3, format: .rgb8, bytes: Array(bytes.prefix(640 * 480 * 3)))
measure("feature print, 5K BGRA screenshot", rounds: 1, { _ in _ = FeaturePrinter.print(screenshot) }, count: 20)
measure("feature print, 640×480 RGB", rounds: 1, { _ in _ = FeaturePrinter.print(small) }, count: 50)
start = ContinuousClock.now
let update = try engine.upsert(Array(file.entities.prefix(100)).map { e in
    var e = e
    e.title += " updated"
    return e
})
let upsertTime = ContinuousClock.now - start
print("upsert of 100 entities → version \(update.catalogVersion) in \(upsertTime)")
rows["upsert of 100"] = ["seconds": micros(upsertTime) / 1e6]
rows["rss at end"] = ["MiB": Double(residentKiB()) / 1024]
writeResults()
print(String(format: "RSS at the end: %.1f MiB (VmRSS)", Double(residentKiB()) / 1024))
print("(\(hits) sheet results)")
