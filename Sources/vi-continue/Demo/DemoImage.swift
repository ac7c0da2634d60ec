import Foundation
import SearchAPI
import SearchSession

/// The picture `vi-continue demo` points the camera at, and what it should find.
///
/// In order of preference: a camera-like shot from `Examples/demo/photos/`; a crop of a catalog
/// entity's own `image_file`; and, for a catalog without images, a rendered cover that the demo
/// gives one album (in this process only) before photographing a crop of it.
struct DemoImage {
    /// The pixels to send.
    var buffer: SearchAPI.PixelBuffer
    /// Where the pixels came from, for the reader.
    var origin: String
    /// The entity the picture shows, when the demo knows it.
    var expected: SearchAPI.EntityRef?

    /// Picks or makes the picture.
    ///
    /// - Parameters:
    ///   - directory: The demo directory (`Examples/demo`), if known.
    ///   - setup: The in-process service, whose engine gets a rendered cover when the catalog has no images.
    static func choose(directory: String?, setup: ServiceSetup) throws -> DemoImage {
        let engine = setup.sessions.engine
        if let directory, let photo = photos(in: directory + "/photos").first {
            let buffer = try ImageDecoder.decode(path: photo)
            return DemoImage(buffer: apiBuffer(buffer), origin: relative(photo, to: directory), expected: nil)
        }
        if let directory, let (path, ref) = firstImageFile(catalog: directory + "/catalog.jsonl") {
            let buffer = try ImageDecoder.decode(path: directory + "/" + path)
            return DemoImage(
                buffer: apiBuffer(cameraLike(buffer)), origin: "a crop of \(path) (the catalog image of \(ref))",
                expected: SearchAPI.EntityRef(type: ref.type, id: ref.id))
        }
        guard
            let album = engine.snapshot.entities.first(where: { $0.type == "album" }) ?? engine.snapshot.entities.first
        else { throw ServiceSetup.Failure(description: "the catalog is empty") }
        let cover = renderCover(side: 160)
        var withCover = album
        withCover.prints = [FeaturePrinter.print(cover)]
        do {
            try engine.upsert([withCover])
        } catch {
            throw ServiceSetup.Failure(description: "could not give \(album.ref) a cover: \(error.message)")
        }
        return DemoImage(
            buffer: apiBuffer(cameraLike(cover)),
            origin: "a crop of a rendered cover given to \(album.ref) (the catalog has no image files)",
            expected: SearchAPI.EntityRef(type: album.type, id: album.id))
    }

    /// PNG and JPEG files in `directory`, sorted by name.
    static func photos(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            let lower = name.lowercased()
            return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") || lower.hasSuffix(".png")
        }.sorted().map { directory + "/" + $0 }
    }

    /// The first catalog line with an `image_file`, and its entity.
    private static func firstImageFile(catalog path: String) -> (String, SearchSession.EntityRef)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.contains("\"image_file\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let file = object["image_file"] as? String, let type = object["type"] as? String,
                let id = object["id"] as? String
            else { continue }
            return (file, SearchSession.EntityRef(type: type, id: id))
        }
        return nil
    }

    /// What a phone camera does to a cover, roughly: the central 80 % and a little more light.
    static func cameraLike(_ image: SearchSession.PixelBuffer) -> SearchSession.PixelBuffer {
        let channels = image.format.bytesPerPixel
        let left = image.width / 10
        let top = image.height / 10
        let width = image.width - 2 * left
        let height = image.height - 2 * top
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * channels)
        for y in top..<(top + height) {
            let row = y * image.bytesPerRow + left * channels
            for offset in 0..<(width * channels) {
                let isAlpha = channels == 4 && offset % 4 == 3
                let value = Int(image.bytes[row + offset])
                bytes.append(isAlpha ? UInt8(value) : UInt8(min(255, value * 11 / 10 + 8)))
            }
        }
        return SearchSession.PixelBuffer(
            width: width, height: height, bytesPerRow: width * channels, format: image.format, bytes: bytes)
    }

    /// A made-up album cover: a diagonal colour wash with rings and a band, RGB8.
    static func renderCover(side: Int) -> SearchSession.PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: side * side * 3)
        let centre = Double(side) * 0.38
        for y in 0..<side {
            for x in 0..<side {
                let t = Double(x + y) / Double(2 * side)
                var red = 200 - 150 * t
                var green = 60 + 120 * t
                var blue = 120 + 100 * (1 - t)
                let dx = Double(x) - centre
                let dy = Double(y) - centre
                let ring = Int((dx * dx + dy * dy).squareRoot()) / 9
                if ring % 2 == 0 && ring < 5 { (red, green, blue) = (250, 220, 60) }
                if y > side * 3 / 4 && y < side * 7 / 8 { (red, green, blue) = (20, 20, 30) }
                let index = (y * side + x) * 3
                bytes[index] = UInt8(red)
                bytes[index + 1] = UInt8(green)
                bytes[index + 2] = UInt8(blue)
            }
        }
        return SearchSession.PixelBuffer(width: side, height: side, bytesPerRow: side * 3, format: .rgb8, bytes: bytes)
    }

    /// Decodes a PNG or JPEG file into the wire form.
    ///
    /// - Throws: A message naming what is wrong with the file.
    static func load(path: String) throws(ServiceSetup.Failure) -> SearchAPI.PixelBuffer {
        do {
            return apiBuffer(try ImageDecoder.decode(path: path))
        } catch {
            throw ServiceSetup.Failure(description: error.message)
        }
    }

    /// The wire form of a decoded or rendered buffer.
    static func apiBuffer(_ buffer: SearchSession.PixelBuffer) -> SearchAPI.PixelBuffer {
        let format: SearchAPI.PixelFormat =
            switch buffer.format {
            case .bgra8: .bgra8
            case .rgba8: .rgba8
            case .rgb8: .rgb8
            case .gray8: .gray8
            }
        return SearchAPI.PixelBuffer(
            width: UInt32(buffer.width), height: UInt32(buffer.height), bytesPerRow: UInt32(buffer.bytesPerRow),
            format: format, data: buffer.bytes)
    }

    private static func relative(_ path: String, to directory: String) -> String {
        path.hasPrefix(directory + "/") ? "Examples/demo/" + path.dropFirst(directory.count + 1) : path
    }
}
