// Exact nearest-neighbour scan, 100k × 128: SearchSession's VectorIndex (the scan behind client
// prints) on the data and queries bench/vector/peer.py wrote, checked against faiss's answers.
//
//     vector-bench bench/out/vector
//
// Prints ms per query (one query per call, top 10, no distance cut-off) and recall@10 against
// faiss IndexFlatL2's ids.
import Foundation
@_spi(Benchmarks) import SearchSession

func floats(_ path: String) throws -> [Float] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { raw in
        (0..<(data.count / 4)).map {
            Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
        }
    }
}

struct FaissRun: Decodable {
    var n: Int
    var d: Int
    var queries: Int
    var ms_per_query: Double
    var ms_per_query_batched: Double
}

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "bench/out/vector"
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3 : 3
let run = try JSONDecoder().decode(
    FaissRun.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/faiss.json")))
let base = try floats(directory + "/base.f32")
let queryValues = try floats(directory + "/queries.f32")
let faissIDs: [Int] = try {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/faiss-ids.i64"))
    return data.withUnsafeBytes { raw in
        (0..<(data.count / 8)).map {
            Int(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)))
        }
    }
}()
let d = run.d
var index = VectorIndex(model: "bench-\(d)", dimension: d)
for i in 0..<run.n { index.add(doc: Int32(i), values: Array(base[(i * d)..<((i + 1) * d)])) }
let queries = (0..<run.queries).map { Array(queryValues[($0 * d)..<(($0 + 1) * d)]) }

for q in queries.prefix(20) { _ = index.search(q, maxDistance: 2, limit: 10) }  // warm-up
var perRound = [Double]()
var unfilteredPerRound = [Double]()
var answers = [[Int32]]()
var unfilteredAnswers = [[Int32]]()
func milliseconds(_ elapsed: Duration) -> Double {
    (Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15) / Double(queries.count)
}
for _ in 0..<rounds {
    answers = []
    var start = ContinuousClock.now
    for q in queries { answers.append(index.search(q, maxDistance: 2, limit: 10).map(\.doc)) }
    perRound.append(milliseconds(ContinuousClock.now - start))
    // The same kernel reading every row in float32: what the float16 filter pass adds.
    unfilteredAnswers = []
    start = ContinuousClock.now
    for q in queries { unfilteredAnswers.append(index.searchWithoutFilter(q, maxDistance: 2, limit: 10).map(\.doc)) }
    unfilteredPerRound.append(milliseconds(ContinuousClock.now - start))
}
let ours = perRound.sorted()[perRound.count / 2]
var found = 0
for (k, answer) in answers.enumerated() {
    let truth = Set(faissIDs[(k * 10)..<((k + 1) * 10)])
    found += answer.filter { truth.contains(Int($0)) }.count
}
let recall = Double(found) / Double(10 * queries.count)
print(
    String(
        format:
            "VectorIndex (%@), 1 thread: %.3f ms per query; faiss IndexFlatL2 %.3f ms (one per call) → ratio %.2f×",
        VectorIndex.kernelDescription, ours, run.ms_per_query, ours / run.ms_per_query))
print(
    String(
        format: "  (faiss batched, %d queries in one call: %.3f ms per query → ratio %.2f×)", run.queries,
        run.ms_per_query_batched, ours / run.ms_per_query_batched))
let unfiltered = unfilteredPerRound.sorted()[unfilteredPerRound.count / 2]
print(
    String(
        format: "  (the same kernel without its float16 filter, every row in float32: %.3f ms → ratio %.2f×)",
        unfiltered, unfiltered / run.ms_per_query))
print(String(format: "recall@10 against faiss: %.4f (must be 1.0)", recall))
if unfilteredAnswers != answers { print("the unfiltered scan answered differently"); exit(1) }
if recall < 1 { exit(1) }
