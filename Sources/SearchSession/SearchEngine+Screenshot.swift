extension SearchEngine {
    /// The built-in print of a descriptor's pixels: of the whole frame, or, for a screenshot, of
    /// the part of the screen that looks most like a catalog picture.
    ///
    /// A screenshot shows its content pixel-exact inside UI, often on a tenth to a half of the
    /// screen (see ``ContentRegions``): the print of each likely content region is compared with
    /// the catalog, beside the whole screen's, and the one nearest to a catalog picture (within
    /// ``screenshotRegionMaxDistance`` for a region) stands for the screenshot. A camera frame (or
    /// a source not said) is printed whole, as before.
    /// The largest distance at which a region of a screenshot stands for it. Content on a screen
    /// is the catalog picture itself, scaled: its print lies much closer than a camera's photo of
    /// it (bench/quality's tune families: every true match within 0.075, pictures of things not
    /// in the catalog from 0.092), and the many regions of a screen must not lend an unknown
    /// picture a match the looser camera threshold would let through.
    static let screenshotRegionMaxDistance: Float = 0.075

    static func pixelPrint(of buffer: PixelBuffer, source: Source, in snapshot: CatalogSnapshot) -> FeaturePrint {
        pixelPrintAndRegion(of: buffer, source: source, in: snapshot).print
    }

    /// ``pixelPrint(of:source:in:)`` with the region of the screenshot that stands for it (`nil`
    /// for the whole frame), whose pixels the geometric verification then describes.
    static func pixelPrintAndRegion(
        of buffer: PixelBuffer, source: Source, in snapshot: CatalogSnapshot
    ) -> (print: FeaturePrint, region: ContentRegions.Region?) {
        let whole = FeaturePrinter.print(buffer)
        guard source == .screenshot else { return (whole, nil) }
        let regions = ContentRegions.find(in: buffer)
        guard !regions.isEmpty else { return (whole, nil) }
        func nearestDistance(_ print: FeaturePrint) -> Float {
            Ranker.nearest(print, in: snapshot, maxDistance: 2, limit: 1).first?.distance ?? .infinity
        }
        var best = (print: whole, region: ContentRegions.Region?.none, distance: nearestDistance(whole))
        for region in regions {
            let print = FeaturePrinter.print(reduced: reduce(buffer, to: region, maxSide: FeaturePrinter.reducedSide))
            let distance = nearestDistance(print)
            if distance <= screenshotRegionMaxDistance && distance < best.distance { best = (print, region, distance) }
        }
        return (best.print, best.region)
    }

    /// The pixels of `region`, reduced to `maxSide`; 1 % is cut from each side, so that the
    /// border's blend with the screen around it stays out.
    static func reduce(_ buffer: PixelBuffer, to region: ContentRegions.Region, maxSide: Int) -> ReducedImage {
        let inset = 0.01
        let x0 = Int(((region.x + region.width * inset) * Double(buffer.width)).rounded())
        let y0 = Int(((region.y + region.height * inset) * Double(buffer.height)).rounded())
        let x1 = Int(((region.x + region.width * (1 - inset)) * Double(buffer.width)).rounded())
        let y1 = Int(((region.y + region.height * (1 - inset)) * Double(buffer.height)).rounded())
        let left = min(max(x0, 0), buffer.width - 1)
        let top = min(max(y0, 0), buffer.height - 1)
        return PixelReducer.reduce(
            buffer, x: left, y: top, width: max(1, min(x1, buffer.width) - left),
            height: max(1, min(y1, buffer.height) - top), maxSide: maxSide)
    }
}
