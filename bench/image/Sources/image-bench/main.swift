// Image recall@1 per perturbation for the built-in feature print, beside the imagehash peers.
//
//     image-bench bench/out/image/manifest.json bench/out/image/peers.json
//
// The manifest (written by bench/image/gallery.py) lists the gallery and, per column, one
// perturbed query per gallery item with the index of the item it came from. Every file is decoded
// first (decoding is not the print's cost); then each gallery item and query is printed, timed one
// by one, and each query's nearest gallery print (1 − cosine) is its answer.
import Foundation
import SearchSession

struct Manifest: Decodable {
    struct Query: Decodable {
        var file: String
        var answer: Int
    }
    struct Column: Decodable {
        var name: String
        var photometric: Bool
        var queries: [Query]
    }
    var gallery: [String]
    var columns: [Column]
}

struct Peers: Decodable {
    var recall: [String: [String: Double]]
    var ms_per_hash: [String: Double]
}

let arguments = CommandLine.arguments
let manifestPath = arguments.count > 1 ? arguments[1] : "bench/out/image/manifest.json"
let peersPath = arguments.count > 2 ? arguments[2] : "bench/out/image/peers.json"
let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
let peers = try? JSONDecoder().decode(Peers.self, from: Data(contentsOf: URL(fileURLWithPath: peersPath)))

var printTimes = [Double]()
@MainActor func timedPrint(_ buffer: PixelBuffer) -> [Float] {
    let start = ContinuousClock.now
    let values = FeaturePrinter.print(buffer).values
    let d = ContinuousClock.now - start
    printTimes.append(Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15)
    return values
}

let galleryBuffers = try manifest.gallery.map { try ImageDecoder.decode(path: $0) }
for buffer in galleryBuffers.prefix(20) { _ = FeaturePrinter.print(buffer) }  // warm-up
let gallery = galleryBuffers.map(timedPrint)
let dimension = gallery[0].count
let flat = gallery.flatMap { $0 }

/// The index of the gallery print nearest to `query` (largest dot product; prints are unit length).
@MainActor func nearest(_ query: [Float]) -> Int {
    var best = -Float.infinity
    var bestIndex = 0
    flat.withUnsafeBufferPointer { rows in
        for g in 0..<gallery.count {
            var dot: Float = 0
            for k in 0..<dimension { dot += rows[g * dimension + k] * query[k] }
            if dot > best {
                best = dot
                bestIndex = g
            }
        }
    }
    return bestIndex
}

/// IMAGE_BENCH_VERBOSE=1 lists every miss (query → the gallery item it was taken for).
let verbose = ProcessInfo.processInfo.environment["IMAGE_BENCH_VERBOSE"] != nil
let name = FeaturePrinter.model
print("gallery: \(gallery.count) images; \(manifest.columns.first?.queries.count ?? 0) queries per column")
print()
print(
    "recall@1".padding(toLength: 26, withPad: " ", startingAt: 0)
        + name.padding(toLength: 15, withPad: " ", startingAt: 0)
        + "pHash".padding(toLength: 8, withPad: " ", startingAt: 0) + "dHash")
var photometricWorst = 1.0
var all = [Double]()
for column in manifest.columns {
    var correct = 0
    for q in column.queries {
        let buffer = try ImageDecoder.decode(path: q.file)
        let answer = nearest(timedPrint(buffer))
        if answer == q.answer {
            correct += 1
        } else if verbose {
            print("  miss \(q.file) → \(manifest.gallery[answer])")
        }
    }
    let recall = Double(correct) / Double(column.queries.count)
    all.append(recall)
    if column.photometric { photometricWorst = min(photometricWorst, recall) }
    let p = peers?.recall["pHash"]?[column.name].map { String(format: "%.3f", $0) } ?? "n/a"
    let dh = peers?.recall["dHash"]?[column.name].map { String(format: "%.3f", $0) } ?? "n/a"
    print(
        column.name.padding(toLength: 26, withPad: " ", startingAt: 0)
            + String(format: "%.3f", recall).padding(toLength: 15, withPad: " ", startingAt: 0)
            + p.padding(toLength: 8, withPad: " ", startingAt: 0) + dh)
}
printTimes.sort()
let mean = printTimes.reduce(0, +) / Double(printTimes.count)
print()
print(
    String(
        format: "%@: worst photometric column %.3f (target ≥ 0.95), combined %.3f (target ≥ 0.93), mean %.3f",
        name, photometricWorst, all.last ?? 0, all.reduce(0, +) / Double(max(all.count, 1))))
print(
    String(
        format: "feature print: %.2f ms mean, %.2f ms p50, %.2f ms p99 per image (%d prints; target ≤ 5 ms)", mean,
        printTimes[printTimes.count / 2], printTimes[min(printTimes.count - 1, printTimes.count * 99 / 100)],
        printTimes.count))
if let peers {
    print(
        String(
            format: "peers (Python, imagehash): pHash %.2f ms, dHash %.2f ms per hash", peers.ms_per_hash["pHash"] ?? 0,
            peers.ms_per_hash["dHash"] ?? 0))
}
