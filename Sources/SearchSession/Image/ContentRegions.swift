/// Where a screenshot shows a picture: axis-aligned rectangles whose four sides are edges along
/// their whole length.
///
/// A screenshot is pixel-exact: a cover shown in an app or on a desktop is an upright rectangle,
/// cut from what surrounds it by a sharp border on every side, and it fills a part of the screen
/// only (a 1600 × 1600 cover on a 5120 × 2880 screen: 17 %). The print of the whole screen does
/// not look like the cover's; the print of that rectangle does. A camera frame has perspective
/// and soft borders instead, so the finder is for screenshots only.
///
/// The screen is reduced to at most ``reducedSide`` pixels; a pixel is an edge across x (or y)
/// where the luminance steps by more than ``edgeStep`` from its neighbour. Rows and columns with a
/// long run of such edges are candidate sides; every rectangle of candidate sides covering
/// ``areaRange`` of the screen is scored by the share of its perimeter that is edge (the weakest
/// of its four sides), and the best few that do not overlap much are returned. Beside them, on a
/// plain background, the largest patches of other colours (a picture whose border is as dark as
/// the desktop around it has no edge there).
enum ContentRegions {
    /// A region, in fractions of the buffer's width and height.
    struct Region: Hashable, Sendable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    /// The longer side of the reduced screen the rectangles are found on.
    static let reducedSide = 192
    /// The luminance step (0...255) between neighbours that counts as an edge.
    static let edgeStep: Float = 10
    /// The share of the screen a content region may cover.
    static let areaRange = 0.06...0.75
    /// The least share of each side that must be edge.
    static let minimumSideCoverage = 0.8
    /// The most regions returned.
    static let maximumRegions = 6

    /// The likely content regions of a screenshot, best first.
    static func find(in buffer: PixelBuffer) -> [Region] {
        let image = PixelReducer.reduce(buffer, maxSide: reducedSide)
        return find(in: image)
    }

    static func find(in image: ReducedImage) -> [Region] {
        let imageWidth = image.width
        let imageHeight = image.height
        guard imageWidth >= 8, imageHeight >= 8 else { return [] }
        var luma = [Float](repeating: 0, count: imageWidth * imageHeight)
        for i in 0..<(imageWidth * imageHeight) {
            luma[i] = 0.299 * image.rgb[i * 3] + 0.587 * image.rgb[i * 3 + 1] + 0.114 * image.rgb[i * 3 + 2]
        }
        // Running counts of edge pixels: down each column (a left or right side at x, between
        // columns x − 1 and x) and along each row (a top or bottom side at y).
        var down = [Int32](repeating: 0, count: (imageWidth + 1) * (imageHeight + 1))
        var along = [Int32](repeating: 0, count: (imageWidth + 1) * (imageHeight + 1))
        for y in 0..<imageHeight {
            for x in 0..<imageWidth {
                let here = luma[y * imageWidth + x]
                let acrossX = x > 0 && abs(here - luma[y * imageWidth + x - 1]) > edgeStep
                let acrossY = y > 0 && abs(here - luma[(y - 1) * imageWidth + x]) > edgeStep
                down[x * (imageHeight + 1) + y + 1] = down[x * (imageHeight + 1) + y] + (acrossX ? 1 : 0)
                along[y * (imageWidth + 1) + x + 1] = along[y * (imageWidth + 1) + x] + (acrossY ? 1 : 0)
            }
        }
        func columnEdges(_ x: Int, _ y0: Int, _ y1: Int) -> Int32 {
            down[x * (imageHeight + 1) + y1] - down[x * (imageHeight + 1) + y0]
        }
        func rowEdges(_ y: Int, _ x0: Int, _ x1: Int) -> Int32 {
            along[y * (imageWidth + 1) + x1] - along[y * (imageWidth + 1) + x0]
        }

        // Candidate sides: a column (row) with an unbroken run of edges of at least a fifth of the
        // screen's height (width); a region of 6 % of the screen has sides at least that long.
        // A busy picture can have many: the longest runs are kept, which bounds the pairs to score.
        let columns = strongest(
            (1..<imageWidth).map { x in (x, longestRun(count: imageHeight) { y in columnEdges(x, y, y + 1) > 0 }) },
            least: imageHeight / 5)
        let rows = strongest(
            (1..<imageHeight).map { y in (y, longestRun(count: imageWidth) { x in rowEdges(y, x, x + 1) > 0 }) },
            least: imageWidth / 5)
        let total = Double(imageWidth * imageHeight)
        var scored = [(region: (x0: Int, y0: Int, x1: Int, y1: Int), coverage: Double, area: Double)]()
        for (i, x0) in columns.enumerated() {
            for x1 in columns[(i + 1)...] {
                for (j, y0) in rows.enumerated() {
                    for y1 in rows[(j + 1)...] {
                        let area = Double((x1 - x0) * (y1 - y0)) / total
                        guard areaRange.contains(area) else { continue }
                        // The weakest side, without an array per rectangle (there may be 10⁵ of them).
                        let height = Double(y1 - y0)
                        let width = Double(x1 - x0)
                        let coverage = min(
                            min(Double(columnEdges(x0, y0, y1)), Double(columnEdges(x1, y0, y1))) / height,
                            min(Double(rowEdges(y0, x0, x1)), Double(rowEdges(y1, x0, x1))) / width)
                        if coverage >= minimumSideCoverage {
                            scored.append(((x0, y0, x1, y1), coverage, area))
                        }
                    }
                }
            }
        }
        // Best covered first; of equally covered ones (a frame drawn inside a cover), the larger.
        scored.sort { a, b in
            let (ca, cb) = ((a.coverage * 20).rounded(), (b.coverage * 20).rounded())
            return ca != cb ? ca > cb : a.area > b.area
        }
        var kept = [(x0: Int, y0: Int, x1: Int, y1: Int)]()
        for candidate in scored where kept.count < maximumRegions {
            if kept.allSatisfy({ overlap($0, candidate.region) < 0.6 }) { kept.append(candidate.region) }
        }
        // A picture whose border is close to the screen around it (a dark wallpaper on a dark
        // desktop) has no edge along some side; on a plain background it is still one patch of
        // other colours, found as such.
        for patch in patches(image) where kept.allSatisfy({ overlap($0, patch) < 0.8 }) {
            let area = Double((patch.x1 - patch.x0) * (patch.y1 - patch.y0)) / total
            if areaRange.contains(area) { kept.append(patch) }
        }
        return kept.map { rectangle in
            Region(
                x: Double(rectangle.x0) / Double(imageWidth), y: Double(rectangle.y0) / Double(imageHeight),
                width: Double(rectangle.x1 - rectangle.x0) / Double(imageWidth),
                height: Double(rectangle.y1 - rectangle.y0) / Double(imageHeight))
        }
    }

    /// The bounding boxes of the largest patches (4-connected) of pixels unlike the screen's most
    /// common colour, when that colour is the background of at least a third of the screen; at
    /// most three, largest first.
    static func patches(_ image: ReducedImage) -> [(x0: Int, y0: Int, x1: Int, y1: Int)] {
        let imageWidth = image.width
        let imageHeight = image.height
        let pixelCount = imageWidth * imageHeight
        // The most common colour, in bins of 16 levels per channel.
        var counts = [Int](repeating: 0, count: 4096)
        func bin(_ pixel: Int) -> Int {
            let red = min(15, Int(image.rgb[pixel * 3]) >> 4)
            let green = min(15, Int(image.rgb[pixel * 3 + 1]) >> 4)
            let blue = min(15, Int(image.rgb[pixel * 3 + 2]) >> 4)
            return red << 8 | green << 4 | blue
        }
        for i in 0..<pixelCount { counts[bin(i)] += 1 }
        let common = counts.indices.max { counts[$0] < counts[$1] }!
        guard counts[common] * 3 >= pixelCount else { return [] }
        var label = [Int32](repeating: -1, count: pixelCount)  // -1 unvisited foreground, -2 background
        for i in 0..<pixelCount where bin(i) == common { label[i] = -2 }
        var boxes = [(box: (x0: Int, y0: Int, x1: Int, y1: Int), size: Int)]()
        var stack = [Int]()
        for start in 0..<pixelCount where label[start] == -1 {
            let id = Int32(boxes.count)
            label[start] = id
            stack.append(start)
            var box = (x0: imageWidth, y0: imageHeight, x1: 0, y1: 0)
            var size = 0
            while let pixel = stack.popLast() {
                let (x, y) = (pixel % imageWidth, pixel / imageWidth)
                size += 1
                box = (min(box.x0, x), min(box.y0, y), max(box.x1, x + 1), max(box.y1, y + 1))
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && ny >= 0 && nx < imageWidth && ny < imageHeight && label[ny * imageWidth + nx] == -1 {
                    label[ny * imageWidth + nx] = id
                    stack.append(ny * imageWidth + nx)
                }
            }
            boxes.append((box, size))
        }
        return boxes.sorted { $0.size > $1.size }.prefix(3).map(\.box)
    }

    /// The most candidate columns (and rows) paired into rectangles.
    static let maximumSides = 40

    /// The positions whose run is at least `least`, the longest ``maximumSides`` of them, ascending.
    private static func strongest(_ runs: [(position: Int, run: Int)], least: Int) -> [Int] {
        let long = runs.filter { $0.run >= least }.sorted {
            $0.run != $1.run ? $0.run > $1.run : $0.position < $1.position
        }
        return long.prefix(maximumSides).map(\.position).sorted()
    }

    /// The longest run of consecutive indices in `0..<count` where `isEdge` holds.
    private static func longestRun(count: Int, _ isEdge: (Int) -> Bool) -> Int {
        var longest = 0
        var run = 0
        for i in 0..<count {
            run = isEdge(i) ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    /// Intersection over union of two rectangles.
    private static func overlap(
        _ a: (x0: Int, y0: Int, x1: Int, y1: Int), _ b: (x0: Int, y0: Int, x1: Int, y1: Int)
    ) -> Double {
        let iw = max(0, min(a.x1, b.x1) - max(a.x0, b.x0))
        let ih = max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
        let intersection = Double(iw * ih)
        let union = Double((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0)) - intersection
        return union > 0 ? intersection / union : 0
    }
}
