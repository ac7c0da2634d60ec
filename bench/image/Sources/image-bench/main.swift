// Image recall@1 per perturbation for the built-in feature print, beside the imagehash peers.
//
//     image-bench bench/out/image/manifest.json bench/out/image/peers.json
//     image-bench --dump bench/out/quality/images/test/manifest.json out.json
//
// --dump (used by bench/quality/run) prints nothing but writes, for every query and held-out image
// of the manifest, our print's nearest and second-nearest catalog items with their distances, and
// for every catalog item its nearest other catalog item: the raw material for calibrating when a
// picture has no match. See dumpNeighbours below.
//
// The manifest (written by bench/image/gallery.py) lists the gallery and, per column, one
// perturbed query per gallery item with the index of the item it came from. Every file is decoded
// first (decoding is not the print's cost); then each gallery item and query is printed, timed one
// by one, and each query's nearest gallery print (1 − cosine) is its answer.
import Foundation
@_spi(Benchmarks) import SearchSession

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
if arguments.count > 4 && arguments[1] == "--screenshots" {
    try screenshotAnswers(manifestPath: arguments[2], screenshotsPath: arguments[3], outPath: arguments[4])
    exit(0)
}
if arguments.count > 3 && arguments[1] == "--verify" {
    let padding = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
    try verifyShortlists(manifestPath: arguments[2], outPath: arguments[3], paddedTo: padding)
    exit(0)
}
if arguments.count > 3 && arguments[1] == "--dump" {
    try dumpNeighbours(manifestPath: arguments[2], outPath: arguments[3])
    exit(0)
}
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

// MARK: - --dump: nearest and second-nearest catalog items for every query and held-out image

struct DumpManifest: Decodable {
    struct HeldOut: Decodable {
        var file: String
    }
    var gallery: [String]
    var columns: [Manifest.Column]
    var heldout: [HeldOut]?
}

struct Neighbours: Encodable {
    var file: String
    var answer: Int?
    var nearest: Int
    var d1: Float
    var second: Int
    var d2: Float
}

struct DumpColumn: Encodable {
    var name: String
    var queries: [Neighbours]
}

struct CatalogNeighbour: Encodable {
    var nearest: Int
    var distance: Float
}

struct Dump: Encodable {
    var model: String
    /// The largest distance the engine answers an image match at by default (its open-set rule today).
    var defaultMaxDistance: Float
    var catalog: [String]
    var catalogNearestOther: [CatalogNeighbour]
    var columns: [DumpColumn]
    var heldout: [Neighbours]
}

/// The two catalog prints nearest to `query` (1 − cosine; prints are unit length), skipping `excluded`.
func twoNearest(_ query: [Float], in catalog: [[Float]], excluding excluded: Int? = nil) -> (Int, Float, Int, Float) {
    var best = (index: -1, distance: Float.infinity)
    var second = (index: -1, distance: Float.infinity)
    for (g, item) in catalog.enumerated() where g != excluded {
        var dot: Float = 0
        for k in 0..<min(item.count, query.count) { dot += item[k] * query[k] }
        let distance = 1 - dot
        if distance < best.distance {
            second = best
            best = (g, distance)
        } else if distance < second.distance {
            second = (g, distance)
        }
    }
    return (best.index, best.distance, second.index, second.distance)
}

func neighbours(file: String, answer: Int?, catalog: [[Float]]) throws -> Neighbours {
    let print = FeaturePrinter.print(try ImageDecoder.decode(path: file)).values
    let (n1, d1, n2, d2) = twoNearest(print, in: catalog)
    return Neighbours(file: file, answer: answer, nearest: n1, d1: d1, second: n2, d2: d2)
}

func dumpNeighbours(manifestPath: String, outPath: String) throws {
    let manifest = try JSONDecoder().decode(DumpManifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
    let catalog = try manifest.gallery.map { FeaturePrinter.print(try ImageDecoder.decode(path: $0)).values }
    let nearestOther = catalog.indices.map { i in
        let (n, d, _, _) = twoNearest(catalog[i], in: catalog, excluding: i)
        return CatalogNeighbour(nearest: n, distance: d)
    }
    let columns = try manifest.columns.map { column in
        DumpColumn(name: column.name, queries: try column.queries.map {
            try neighbours(file: $0.file, answer: $0.answer, catalog: catalog)
        })
    }
    let heldout = try (manifest.heldout ?? []).map { try neighbours(file: $0.file, answer: nil, catalog: catalog) }
    let dump = Dump(model: FeaturePrinter.model, defaultMaxDistance: FeaturePrinter.defaultMaxDistance, catalog: manifest.gallery, catalogNearestOther: nearestOther,
                    columns: columns, heldout: heldout)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    try encoder.encode(dump).write(to: URL(fileURLWithPath: outPath))
}

// MARK: - --screenshots: the engine's own sheet answers for screenshots of catalog and held-out pictures
//
//     image-bench --screenshots MANIFEST SCREENSHOTS.json OUT.json
//
// Builds a SearchEngine whose entities are the manifest's gallery (one per picture, with its
// built-in print) and asks the sheet (limit 1) for every screenshot of bench/quality/screenshots.py,
// once as a SCREENSHOT and once as a CAMERA frame, at the engine's default max distance. Writes
// per screenshot the answered item (or null) for each source.

struct Screenshots: Decodable {
    struct Shot: Decodable {
        var file: String
        var answer: Int?
        var screen: String
    }
    var queries: [Shot]
    var heldout: [Shot]
}

struct ScreenshotAnswer: Encodable {
    var file: String
    var screen: String
    var answer: Int?
    var screenshot: Int?
    /// The image distance of the SCREENSHOT answer.
    var screenshotDistance: Float?
    var camera: Int?
    var screenshotMs: Double
}

struct ScreenshotReport: Encodable {
    var queries: [ScreenshotAnswer]
    var heldout: [ScreenshotAnswer]
}

func screenshotAnswers(manifestPath: String, screenshotsPath: String, outPath: String) throws {
    let manifest = try JSONDecoder().decode(DumpManifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
    let shots = try JSONDecoder().decode(Screenshots.self, from: Data(contentsOf: URL(fileURLWithPath: screenshotsPath)))
    var entities = [Entity]()
    for (index, path) in manifest.gallery.enumerated() {
        var entity = Entity(type: "picture", id: String(index), title: (path as NSString).lastPathComponent)
        entity.prints = [FeaturePrinter.print(try ImageDecoder.decode(path: path))]
        entities.append(entity)
    }
    let engine = SearchEngine(entities: entities)
    func answer(_ shot: Screenshots.Shot) throws -> ScreenshotAnswer {
        let buffer = try ImageDecoder.decode(path: shot.file)
        func ask(_ source: Source) throws -> (Int?, Float?, Double) {
            let start = ContinuousClock.now
            let results = try engine.query(
                QueryRequest(descriptor: Descriptor(pixelBuffer: buffer, source: source), limit: 1))
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            return (results.first.flatMap { Int($0.entity.id) }, results.first?.distance, ms)
        }
        let (asScreenshot, distance, ms) = try ask(.screenshot)
        let (asCamera, _, _) = try ask(.camera)
        return ScreenshotAnswer(
            file: shot.file, screen: shot.screen, answer: shot.answer, screenshot: asScreenshot,
            screenshotDistance: distance, camera: asCamera, screenshotMs: ms)
    }
    let report = ScreenshotReport(queries: try shots.queries.map(answer), heldout: try shots.heldout.map(answer))
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    try encoder.encode(report).write(to: URL(fileURLWithPath: outPath))
}

// MARK: - --verify: geometric verification of each query's shortlist, with its time
//
//     image-bench --verify MANIFEST OUT.json [PADDED_CATALOG_SIZE]
//
// For every query and held-out image: the print, the catalog's nearest `shortlist` items by print
// distance (VectorIndex, the engine's scan), and for each the inliers GeometricVerifier finds
// against its local features; plus the query's CPU time split into print, scan, keypoints and
// verification. With PADDED_CATALOG_SIZE the scan runs over that many rows (the catalog's own
// first, then random crops of its pictures, printed and described the same way) while the
// answers still come from the catalog: a timing figure at that catalog size.

struct ShortlistEntry: Encodable {
    var item: Int
    var distance: Float
    var inliers: Int
}

struct VerifiedQuery: Encodable {
    var file: String
    var answer: Int?
    var shortlist: [ShortlistEntry]
    var printMs: Double
    var scanMs: Double
    var keypointsMs: Double
    var verifyMs: Double
}

struct VerifiedColumn: Encodable {
    var name: String
    var queries: [VerifiedQuery]
}

struct VerifyDump: Encodable {
    var catalog: [String]
    /// Each catalog picture's keypoints (a feature-poor picture verifies nothing).
    var catalogKeypoints: [Int]
    var catalogSize: Int
    var shortlist: Int
    var columns: [VerifiedColumn]
    var heldout: [VerifiedQuery]
}

/// CPU time of the calling thread, in milliseconds: other builds share these cores, and wall time
/// would charge their work to ours.
func threadMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

/// A copy of the `width` × `height` rectangle at (`x`, `y`) of an RGB-convertible buffer, as RGB.
func crop(_ buffer: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
    let bpp = buffer.format.bytesPerPixel
    var bytes = [UInt8]()
    bytes.reserveCapacity(width * height * bpp)
    for row in y..<(y + height) {
        let start = row * buffer.bytesPerRow + x * bpp
        bytes.append(contentsOf: buffer.bytes[start..<(start + width * bpp)])
    }
    return PixelBuffer(width: width, height: height, bytesPerRow: width * bpp, format: buffer.format, bytes: bytes)
}

func verifyShortlists(manifestPath: String, outPath: String, paddedTo padding: Int) throws {
    let shortlist = 5
    let manifest = try JSONDecoder().decode(DumpManifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
    let buffers = try manifest.gallery.map { try ImageDecoder.decode(path: $0) }
    let features = buffers.map { LocalFeatures.extract($0) }
    var index = VectorIndex(model: FeaturePrinter.model, dimension: FeaturePrinter.dimension)
    for (item, buffer) in buffers.enumerated() { index.add(doc: Int32(item), values: FeaturePrinter.print(buffer).values) }
    // Padding rows: prints of random crops (50–90 % of each side) of the catalog's pictures, so the
    // scan reads as many rows as a catalog of that size. Verification costs the same per shortlisted
    // row whatever the catalog's size: a padding row is verified against the features of the
    // picture it was cut from (it stands for a picture of its own only in the time it takes).
    var generator = SystemRandomNumberGenerator()
    var paddingSource = [Int]()
    var row = buffers.count
    while row < padding {
        let item = row % buffers.count
        let buffer = buffers[item]
        let width = max(8, Int(Double(buffer.width) * Double.random(in: 0.5...0.9, using: &generator)))
        let height = max(8, Int(Double(buffer.height) * Double.random(in: 0.5...0.9, using: &generator)))
        let piece = crop(
            buffer, x: Int.random(in: 0...(buffer.width - width), using: &generator),
            y: Int.random(in: 0...(buffer.height - height), using: &generator), width: width, height: height)
        index.add(doc: Int32(row), values: FeaturePrinter.print(piece).values)
        paddingSource.append(item)
        row += 1
    }
    func ask(file: String, answer: Int?) throws -> VerifiedQuery {
        let buffer = try ImageDecoder.decode(path: file)
        let start = threadMilliseconds()
        let print = FeaturePrinter.print(buffer)
        let printed = threadMilliseconds()
        let hits = index.search(print.values, maxDistance: 2, limit: shortlist)
        let scanned = threadMilliseconds()
        let query = LocalFeatures.extract(buffer)
        let described = threadMilliseconds()
        var entries = [ShortlistEntry]()
        for hit in hits {
            let doc = Int(hit.doc)
            let item = doc < buffers.count ? doc : paddingSource[doc - buffers.count]
            entries.append(ShortlistEntry(item: item, distance: hit.distance, inliers: GeometricVerifier.inliers(query, features[item])))
        }
        let verified = threadMilliseconds()
        return VerifiedQuery(
            file: file, answer: answer, shortlist: entries, printMs: printed - start, scanMs: scanned - printed,
            keypointsMs: described - scanned, verifyMs: verified - described)
    }
    let columns = try manifest.columns.map { column in
        VerifiedColumn(name: column.name, queries: try column.queries.map { try ask(file: $0.file, answer: $0.answer) })
    }
    let heldout = try (manifest.heldout ?? []).map { try ask(file: $0.file, answer: nil) }
    let dump = VerifyDump(
        catalog: manifest.gallery, catalogKeypoints: features.map(\.count), catalogSize: max(padding, buffers.count),
        shortlist: shortlist, columns: columns,
        heldout: heldout)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    try encoder.encode(dump).write(to: URL(fileURLWithPath: outPath))
}
