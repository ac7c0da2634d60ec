import Foundation
import Testing

@testable import SearchSession

/// A screenshot shows its content pixel-exact inside UI, on a part of the screen: the sheet finds
/// the demo cover "Endless Morning" on screens of several sizes, with UI around it, when the source
/// says screenshot; a camera frame is printed whole.
@Suite struct ScreenshotTests {
    static let engine: SearchEngine = {
        let file = try! CatalogLoader.load(path: DemoCatalogTests.path)
        return SearchEngine(catalog: file)
    }()

    static var coverPath: String {
        URL(fileURLWithPath: DemoCatalogTests.path).deletingLastPathComponent()
            .appendingPathComponent("images/albums/endless-morning.jpg").path
    }

    /// A BGRA screen being drawn on.
    struct Screen {
        var width: Int
        var height: Int
        var bytes: [UInt8]

        init(width: Int, height: Int, colour: (UInt8, UInt8, UInt8)) {
            self.width = width
            self.height = height
            bytes = [UInt8](repeating: 255, count: width * height * 4)
            fill(x: 0, y: 0, w: width, h: height, colour)
        }

        mutating func fill(x: Int, y: Int, w: Int, h: Int, _ colour: (UInt8, UInt8, UInt8)) {
            for row in y..<min(y + h, height) {
                for column in x..<min(x + w, width) {
                    let p = (row * width + column) * 4
                    (bytes[p], bytes[p + 1], bytes[p + 2]) = (colour.2, colour.1, colour.0)
                }
            }
        }

        /// Lines of "text": short dark bars, as a caption or a list would show.
        mutating func text(x: Int, y: Int, w: Int, lines: Int, height lineHeight: Int) {
            for line in 0..<lines {
                let length = w * (60 + (line * 37) % 40) / 100
                fill(x: x, y: y + line * lineHeight * 2, w: length, h: lineHeight, (60, 60, 66))
            }
        }

        /// `image` scaled to `w` × `h` (nearest pixel) with its top left corner at (x, y).
        mutating func draw(_ image: PixelBuffer, x: Int, y: Int, w: Int, h: Int) {
            let bpp = image.format.bytesPerPixel
            for row in 0..<h {
                let sy = row * image.height / h
                for column in 0..<w {
                    let sx = column * image.width / w
                    let s = sy * image.bytesPerRow + sx * bpp
                    let p = ((y + row) * width + x + column) * 4
                    (bytes[p], bytes[p + 1], bytes[p + 2]) = (image.bytes[s + 2], image.bytes[s + 1], image.bytes[s])
                }
            }
        }

        var buffer: PixelBuffer {
            PixelBuffer(width: width, height: height, bytesPerRow: width * 4, format: .bgra8, bytes: bytes)
        }
    }

    /// The screens: the cover on a plain 5K desktop, in an app window with a sidebar and text, on a
    /// small laptop screen on a busy wallpaper, and as a thumbnail in a list.
    static func screens(_ cover: PixelBuffer) -> [(name: String, screen: Screen)] {
        var desktop = Screen(width: 5120, height: 2880, colour: (38, 42, 50))
        desktop.draw(cover, x: 1760, y: 640, w: 1600, h: 1600)

        var window = Screen(width: 2560, height: 1600, colour: (236, 236, 238))
        window.fill(x: 0, y: 0, w: 2560, h: 56, (52, 54, 60))
        window.fill(x: 0, y: 56, w: 420, h: 1544, (222, 224, 228))
        window.text(x: 40, y: 120, w: 320, lines: 20, height: 18)
        window.draw(cover, x: 620, y: 200, w: 760, h: 760)
        window.text(x: 620, y: 1020, w: 1400, lines: 8, height: 22)

        var laptop = Screen(width: 1280, height: 800, colour: (0, 0, 0))
        let wallpaper = RGBImage.scene(seed: 7, width: 320, height: 200).buffer
        laptop.draw(wallpaper, x: 0, y: 0, w: 1280, h: 800)
        laptop.fill(x: 380, y: 140, w: 520, h: 560, (250, 250, 250))
        laptop.draw(cover, x: 440, y: 180, w: 400, h: 400)
        laptop.text(x: 440, y: 610, w: 400, lines: 2, height: 14)

        var list = Screen(width: 1920, height: 1080, colour: (250, 250, 250))
        list.fill(x: 0, y: 0, w: 1920, h: 64, (30, 110, 220))
        for row in 0..<3 { list.text(x: 1000, y: 160 + row * 300, w: 700, lines: 3, height: 20) }
        list.draw(cover, x: 360, y: 140, w: 520, h: 520)
        return [("5K desktop", desktop), ("app window", window), ("laptop", laptop), ("list", list)]
    }

    static func sheet(_ buffer: PixelBuffer, source: Source) throws -> [QueryResult] {
        try engine.query(QueryRequest(descriptor: Descriptor(pixelBuffer: buffer, source: source), limit: 3))
    }

    @Test("a screenshot answers the cover it shows, on screens of several sizes with UI around it")
    func screenshotsFindTheirContent() throws {
        let cover = try ImageDecoder.decode(path: Self.coverPath)
        for (name, screen) in Self.screens(cover) {
            let results = try Self.sheet(screen.buffer, source: .screenshot)
            #expect(results.first?.entity == EntityRef(type: "album", id: "endless-morning"), "\(name): \(results)")
        }
    }

    @Test("the content regions of a screenshot include the cover's rectangle")
    func contentRegionsFindTheCover() throws {
        let cover = try ImageDecoder.decode(path: Self.coverPath)
        let (_, desktop) = Self.screens(cover)[0]
        let regions = ContentRegions.find(in: desktop.buffer)
        let expected = ContentRegions.Region(x: 1760 / 5120, y: 640 / 2880, width: 1600 / 5120, height: 1600 / 2880)
        #expect(
            regions.contains { r in
                abs(r.x - expected.x) < 0.01 && abs(r.y - expected.y) < 0.01 && abs(r.width - expected.width) < 0.02
                    && abs(r.height - expected.height) < 0.02
            }, "\(regions)")
    }

    @Test("a camera frame is printed whole: the 5K desktop as a camera frame does not answer the cover")
    func cameraFramesArePrintedWhole() throws {
        let cover = try ImageDecoder.decode(path: Self.coverPath)
        let (_, desktop) = Self.screens(cover)[0]
        let camera = try Self.sheet(desktop.buffer, source: .camera)
        #expect(camera.first?.entity != EntityRef(type: "album", id: "endless-morning"), "\(camera)")
    }
}
