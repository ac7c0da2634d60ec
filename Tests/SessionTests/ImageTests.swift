import Foundation
import Testing

@testable import SearchSession

@Suite struct ImageTests {
    static let perturbations: [(String, @Sendable (RGBImage) throws -> RGBImage)] = [
        ("jpeg q20", { try $0.jpegRoundTrip(quality: 20) }),
        ("scale 0.25", { $0.scaled(0.25) }),
        ("brightness +40%", { $0.map { $0 * 1.4 } }),
        ("contrast 0.6", { $0.map { ($0 - 128) * 0.6 + 128 } }),
        ("blur r2", { $0.blurred(radius: 2) }),
        ("crop 80%", { $0.centreCrop(0.8) }),
        ("crop 60%", { $0.centreCrop(0.6) }),
        ("corner crop 70%", { $0.cropped(x0: 0, y0: 0, w: $0.width * 7 / 10, h: $0.height * 7 / 10) }),
        ("rotate 10°", { $0.rotated(degrees: 10) }),
        ("mirror", { $0.mirrored() }),
        ("crop 80% + jpeg 30 + brightness 1.2", { try $0.centreCrop(0.8).jpegRoundTrip(quality: 30).map { $0 * 1.2 } }),
    ]

    @Test func thePrintFindsPerturbedImagesAndIsMirrorInvariant() throws {
        let gallery = (0..<12).map { RGBImage.scene(seed: UInt64($0)) }
        let prints = gallery.map { FeaturePrinter.print($0.buffer) }
        #expect(prints.allSatisfy { $0.values.count == FeaturePrinter.dimension && $0.model == FeaturePrinter.model })
        var report = [String]()
        for (name, perturb) in Self.perturbations {
            var hits = 0
            var same = [Float]()
            for (i, image) in gallery.enumerated() {
                let p = FeaturePrinter.print(try perturb(image).buffer)
                let d = prints.map { distance(p, $0) }
                same.append(d[i])
                if d.indices.min(by: { d[$0] < d[$1] }) == i { hits += 1 }
            }
            let recall = Double(hits) / Double(gallery.count)
            report.append(
                "\(name): recall@1 \(recall), median same \(same.sorted()[same.count / 2]), max same \(same.max()!)")
            #expect(recall >= 0.9, "\(name)")
            if name == "mirror" { #expect(same.max()! < 0.005) }
            if ["jpeg q20", "brightness +40%", "contrast 0.6", "blur r2", "scale 0.25"].contains(name) {
                #expect(same.max()! <= FeaturePrinter.defaultMaxDistance, "\(name)")
            }
        }
        var different = [Float]()
        for i in prints.indices {
            for j in prints.indices where j > i { different.append(distance(prints[i], prints[j])) }
        }
        report.append("different: min \(different.min()!), median \(different.sorted()[different.count / 2])")
        if ProcessInfo.processInfo.environment["PRINT_REPORT"] != nil { print(report.joined(separator: "\n")) }
    }

    static func pattern(width: Int, height: Int) -> RGBImage { RGBImage.scene(seed: 99, width: width, height: height) }

    /// The same picture in every pixel format, with padded rows, prints the same.
    @Test(arguments: PixelFormat.allCases, [0, 3, 64])
    func everyPixelFormatAndStridePrintsTheSame(format: PixelFormat, padding: Int) throws {
        let image = Self.pattern(width: 101, height: 67)
        let grey = format == .gray8
        let reference = grey ? image.map { $0 }.greyscale() : image
        let bpp = format.bytesPerPixel
        let stride = image.width * bpp + padding
        var bytes = [UInt8](repeating: 0xEE, count: stride * (image.height - 1) + image.width * bpp)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (r, g, b) = (reference[x, y, 0], reference[x, y, 1], reference[x, y, 2])
                let o = y * stride + x * bpp
                switch format {
                case .bgra8: (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]) = (b, g, r, 255)
                case .rgba8: (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]) = (r, g, b, 7)
                case .rgb8: (bytes[o], bytes[o + 1], bytes[o + 2]) = (r, g, b)
                case .gray8: bytes[o] = r
                }
            }
        }
        let buffer = PixelBuffer(
            width: image.width, height: image.height, bytesPerRow: stride, format: format, bytes: bytes)
        try buffer.validate()
        #expect(FeaturePrinter.print(buffer) == FeaturePrinter.print(reference.buffer))
    }

    @Test func aNearlyUniformPictureHasAFiniteUnitPrintThatJPEGBarelyMoves() throws {
        // No gradients and no contrast: the flat bin and the thumbnail's floor keep the print
        // defined (no 0/0) instead of blowing compression noise up to a full block.
        let grey = RGBImage(width: 120, height: 90, pixels: [UInt8](repeating: 128, count: 120 * 90 * 3))
        let print = FeaturePrinter.print(grey.buffer)
        #expect(print.values.allSatisfy { $0.isFinite })
        let norm = print.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        #expect(abs(norm - 1) < 1e-4)
        let compressed = FeaturePrinter.print(try grey.jpegRoundTrip(quality: 20).buffer)
        #expect(distance(print, compressed) < 0.01)
    }

    @Test func aFiveKScreenshotIsReducedNotCopied() throws {
        let (w, h) = (5120, 2880)
        let stride = w * 4 + 32
        var bytes = [UInt8](repeating: 0, count: stride * h)
        for y in 0..<h {
            for x in 0..<w where (x / 640 + y / 360) % 2 == 0 {
                bytes[y * stride + x * 4] = 200
                bytes[y * stride + x * 4 + 3] = 255
            }
        }
        let buffer = PixelBuffer(width: w, height: h, bytesPerRow: stride, format: .bgra8, bytes: bytes)
        let reduced = PixelReducer.reduce(buffer, maxSide: FeaturePrinter.reducedSide)
        #expect(reduced.width == 64 && reduced.height == 36)
        #expect(FeaturePrinter.print(buffer).values.count == FeaturePrinter.dimension)
    }

    @Test func pngFilesDecodeExactly() throws {
        let image = Self.pattern(width: 33, height: 21)
        let png = try ImageEncoder.png(width: image.width, height: image.height, rgb: image.pixels)
        let path = NSTemporaryDirectory() + "img-\(SessionRecord.newID()).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(png)))
        let decoded = try ImageDecoder.decode(path: path)
        #expect(decoded.width == 33 && decoded.height == 21 && decoded.format == .rgb8 && decoded.bytesPerRow == 99)
        #expect(decoded.bytes == image.pixels)
    }

    @Test func jpegFilesDecodeClosely() throws {
        let image = Self.pattern(width: 64, height: 48).blurred(radius: 1)
        let jpeg = try ImageEncoder.jpeg(width: image.width, height: image.height, rgb: image.pixels, quality: 95)
        let path = NSTemporaryDirectory() + "img-\(SessionRecord.newID()).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(jpeg)))
        let decoded = try ImageDecoder.decode(path: path)
        #expect(decoded.width == 64 && decoded.height == 48)
        let error = zip(decoded.bytes, image.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / decoded.bytes.count
        #expect(error < 6)
    }

    @Test func brokenImagesAreErrorsNotCrashes() throws {
        let image = Self.pattern(width: 40, height: 30)
        let jpeg = try ImageEncoder.jpeg(width: 40, height: 30, rgb: image.pixels, quality: 80)
        let png = try ImageEncoder.png(width: 40, height: 30, rgb: image.pixels)
        var badHuffman = jpeg
        if let dht = (0..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 }) {
            badHuffman[dht + 4] = 0x7F  // an impossible table class and id
        }
        let cases: [[UInt8]] = [
            [1, 2, 3], Array(jpeg.prefix(20)), badHuffman, Array(png.prefix(40)),
            Array(png.prefix(8)) + [UInt8](repeating: 0, count: 64),
        ]
        for bytes in cases {
            #expect(throws: SearchError.self) { try ImageDecoder.decode(bytes) }
        }
        // A truncated scan still decodes (libjpeg pads it), like a browser would show it.
        let big = RGBImage.scene(seed: 5, width: 320, height: 240)
        let full = try ImageEncoder.jpeg(width: 320, height: 240, rgb: big.pixels, quality: 90)
        let truncated = try ImageDecoder.decode(Array(full.prefix(full.count * 9 / 10)))
        #expect(truncated.width == 320)
    }

    @Test func catalogImageFilesArePrintedAtLoadAndFoundByPixels() throws {
        let dir = NSTemporaryDirectory() + "catalog-\(SessionRecord.newID())"
        try FileManager.default.createDirectory(atPath: dir + "/covers", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var lines = [String]()
        for i in 0..<6 {
            let image = RGBImage.scene(seed: UInt64(100 + i), width: 160, height: 120)
            let bytes =
                i % 2 == 0
                ? try ImageEncoder.png(width: 160, height: 120, rgb: image.pixels)
                : try ImageEncoder.jpeg(width: 160, height: 120, rgb: image.pixels, quality: 90)
            let name = "covers/\(i).\(i % 2 == 0 ? "png" : "jpg")"
            #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)))
            lines.append(#"{"type":"album","id":"a\#(i)","title":"Album \#(i)","image_file":"\#(name)"}"#)
        }
        try lines.joined(separator: "\n").write(toFile: dir + "/catalog.jsonl", atomically: true, encoding: .utf8)
        let file = try CatalogLoader.load(path: dir + "/catalog.jsonl")
        #expect(file.errors.isEmpty)
        #expect(file.entities.allSatisfy { $0.prints.first?.model == FeaturePrinter.model })
        let engine = SearchEngine(catalog: file)
        let photo = RGBImage.scene(seed: 103, width: 160, height: 120).mirrored().centreCrop(0.8).map { $0 * 1.2 }
        let results = try engine.query(QueryRequest(descriptor: Descriptor(pixelBuffer: photo.buffer)))
        #expect(results.first?.entity.id == "a3")
        #expect(results.first?.match == .image)
        // An unrelated picture finds nothing rather than the least bad match.
        let unrelated = RGBImage.scene(seed: 9999, width: 160, height: 120)
        let none = try engine.query(
            QueryRequest(descriptor: Descriptor(pixelBuffer: unrelated.buffer), maxDistance: 0.02))
        #expect(none.isEmpty)
    }
}

@Suite struct ImageSessionTests {
    @Test func captureKeepsThePrintNotThePixelsAndSearchFindsTheImage() async throws {
        let covers = (0..<5).map { RGBImage.scene(seed: UInt64(200 + $0), width: 120, height: 90) }
        let engine = SearchEngine(
            entities: covers.enumerated().map { i, c in
                Entity(type: "album", id: "c\(i)", title: "Cover \(i)", prints: [FeaturePrinter.print(c.buffer)])
            })
        let store = InMemorySessionStore()
        let sessions = SearchSessions(engine: engine, store: store)
        let photo = covers[2].mirrored().map { $0 * 1.3 }
        let state = try await sessions.capture(Descriptor(pixelBuffer: photo.buffer, source: .camera))
        let record = try await store.load(id: state.sessionID, nowUnixMs: engine.nowMs())
        #expect(record.prints.map(\.model) == [FeaturePrinter.model])
        #expect(record.prints[0].values.count == FeaturePrinter.dimension)
        #expect(state.results.first?.entity.id == "c2")
        #expect(state.results.first?.match == .image)
        #expect(state.relaxations.isEmpty)
    }

    @Test("a capture's max distance is kept with the session and applies to every page")
    func captureHonoursMaxDistance() async throws {
        let covers = (0..<6).map { RGBImage.scene(seed: UInt64(300 + $0), width: 120, height: 90) }
        let engine = SearchEngine(
            entities: covers.enumerated().map { i, c in
                Entity(type: "album", id: "c\(i)", title: "Cover \(i)", prints: [FeaturePrinter.print(c.buffer)])
            })
        let store = InMemorySessionStore()
        let sessions = SearchSessions(engine: engine, store: store)
        let photo = covers[3].map { $0 * 1.1 }
        let bounded = try await sessions.capture(Descriptor(pixelBuffer: photo.buffer, source: .camera), pageSize: 2)
        #expect(bounded.results.map(\.entity.id) == ["c3"], "the default bound keeps the other covers out")
        // A wider bound lets every cover in, on the first page and on every refinement after it.
        let wide = try await sessions.capture(
            Descriptor(pixelBuffer: photo.buffer, source: .camera), pageSize: 2, maxDistance: 4)
        #expect(try await store.load(id: wide.sessionID, nowUnixMs: engine.nowMs()).maxDistance == 4)
        #expect(wide.results.first?.entity.id == "c3")
        #expect(wide.totalHits == 6)
        let refined = try await sessions.search(SearchRequest(sessionID: wide.sessionID, entityTypes: ["album"]))
        #expect(refined.totalHits == 6)
        let next = try await sessions.search(SearchRequest(sessionID: wide.sessionID, pageToken: wide.nextPageToken))
        #expect(next.results.count == 2 && !next.results.contains { $0.entity.id == "c3" })
        await #expect(throws: SearchError.self) {
            try await sessions.capture(Descriptor(pixelBuffer: photo.buffer, source: .camera), maxDistance: -1)
        }
    }
}

extension RGBImage {
    func greyscale() -> RGBImage {
        var out = self
        for i in 0..<(width * height) {
            let v = pixels[i * 3]
            out.pixels[i * 3 + 1] = v
            out.pixels[i * 3 + 2] = v
        }
        return out
    }
}
