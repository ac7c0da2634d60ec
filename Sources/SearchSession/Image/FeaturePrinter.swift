internal import Foundation

/// The built-in feature print: a fused, mirror-invariant global descriptor, pooled over scales.
///
/// The image is reduced to at most 64 pixels on its longer side (see ``PixelReducer``; small
/// enough that JPEG blocks and a 4× down-scale average away). The descriptor below is computed for
/// the whole reduced image and for its centre 80 % and 64 %, and the three are summed: a photo of
/// the middle of a picture then shares most of its scales with the picture's own print.
///
/// For each scale, five regions that are symmetric under a left–right mirror — the whole image,
/// its central half, and the top, middle and bottom thirds — each contribute
///
/// - a colour histogram: 12 hue bins × 2 saturation levels plus one grey bin, soft-assigned along
///   hue, weighted by saturation relative to the image's mean saturation (hue survives brightness
///   changes; relative saturation survives contrast changes);
/// - a gradient-orientation histogram of 6 bins over the *folded* orientation `min(θ, π − θ)`
///   (a mirror maps θ to π − θ), soft-assigned, weighted by gradient magnitude, plus a "flat" bin
///   with a constant mass per pixel, so that faint gradients (JPEG block edges on a smooth
///   picture) cannot fill a histogram on their own.
///
/// Plus a coarse-scale orientation histogram of the whole image (robust to blur) and an 8 × 8
/// luminance thumbnail averaged with its mirror and standardised (zero mean, unit norm, but with
/// a floor so a near-uniform picture's noise is not blown up; invariant to brightness and
/// contrast). Each histogram is square-rooted (Hellinger), L2-normalised and weighted (whole-image
/// blocks most, as crops keep them best); the result is L2-normalised, so the distance between
/// two prints is `1 − cosine`. bench/image measures it beside pHash and dHash.
public enum FeaturePrinter {
    /// The model id of the built-in print.
    public static let model = "vi-feature-v2"
    /// The built-in print's dimension.
    public static let dimension = 200
    /// The default largest distance for an image match with the built-in print.
    public static let defaultMaxDistance: Float = 0.12

    static let reducedSide = 64
    private static let hueBins = 12
    private static let colourBins = hueBins * 2 + 1
    private static let orientationBins = 6
    /// The flat bin's mass per pixel, in luminance steps (0...255) of gradient.
    private static let flatGradient: Float = 6
    /// The thumbnail's smallest norm (about a 4-step standard deviation over its 32 values).
    private static let thumbnailContrastFloor: Float = 22
    private static let thumbnailWeight: Float = 1.0

    /// Computes the built-in print of a valid pixel buffer, reducing it first.
    public static func print(_ buffer: PixelBuffer) -> FeaturePrint {
        print(reduced: PixelReducer.reduce(buffer, maxSide: reducedSide))
    }

    static func print(reduced image: ReducedImage) -> FeaturePrint {
        // Pool the descriptor over nested centre crops: a photo that shows only the middle 80 % of
        // a picture then shares two of its three scales with the picture's own print.
        var out = [Float](repeating: 0, count: dimension)
        for fraction in pooledCrops {
            let part = describe(centreCrop(image, fraction))
            for i in part.indices { out[i] += part[i] }
        }
        normalize(&out)
        return FeaturePrint(model: model, values: out)
    }

    /// The centre fractions (of each side) the descriptor is pooled over.
    static let pooledCrops: [Float] = [1, 0.8, 0.64]

    static func centreCrop(_ image: ReducedImage, _ fraction: Float) -> ReducedImage {
        guard fraction < 1 else { return image }
        let cropWidth = max(1, Int((Float(image.width) * fraction).rounded()))
        let cropHeight = max(1, Int((Float(image.height) * fraction).rounded()))
        let x0 = (image.width - cropWidth) / 2
        let y0 = (image.height - cropHeight) / 2
        var rgb = [Float]()
        rgb.reserveCapacity(cropWidth * cropHeight * 3)
        for y in y0..<(y0 + cropHeight) {
            let row = (y * image.width + x0) * 3
            rgb.append(contentsOf: image.rgb[row..<(row + cropWidth * 3)])
        }
        return ReducedImage(width: cropWidth, height: cropHeight, rgb: rgb)
    }

    /// The fused descriptor of one (cropped) reduced image, before the final normalisation.
    private static func describe(_ image: ReducedImage) -> [Float] {
        let width = image.width
        let height = image.height
        let pixelCount = width * height
        var luma = [Float](repeating: 0, count: pixelCount)
        var hue = [Float](repeating: 0, count: pixelCount)
        var sat = [Float](repeating: 0, count: pixelCount)
        for i in 0..<pixelCount {
            let red = image.rgb[i * 3]
            let green = image.rgb[i * 3 + 1]
            let blue = image.rgb[i * 3 + 2]
            luma[i] = 0.299 * red + 0.587 * green + 0.114 * blue
            let mx = max(red, green, blue)
            let mn = min(red, green, blue)
            let chroma = mx - mn
            sat[i] = mx > 0 ? chroma / mx : 0
            if chroma > 0 {
                var hh: Float
                if mx == red {
                    hh = (green - blue) / chroma
                } else if mx == green {
                    hh = (blue - red) / chroma + 2
                } else {
                    hh = (red - green) / chroma + 4
                }
                if hh < 0 { hh += 6 }
                hue[i] = hh / 6
            }
        }
        // Saturation relative to the image's mean, so a contrast change (which scales chroma) moves
        // few pixels between the grey bin and the two saturation levels.
        var meanSat: Float = 0
        for saturation in sat { meanSat += saturation }
        meanSat = max(meanSat / Float(max(pixelCount, 1)), 0.15)
        let blurred = boxBlur(luma, width, height)
        let (magnitude, orientation) = gradients(blurred, width, height)

        // Regions as (x0, y0, x1, y1) fractions, all symmetric under a horizontal mirror.
        let regions: [(Float, Float, Float, Float, Float)] = [
            (0, 0, 1, 1, 2.0),
            (0.25, 0.25, 0.75, 0.75, 1.2),
            (0, 0, 1, 1.0 / 3, 0.6),
            (0, 1.0 / 3, 1, 2.0 / 3, 0.6),
            (0, 2.0 / 3, 1, 1, 0.6),
        ]
        var out = [Float]()
        out.reserveCapacity(dimension)
        for (fx0, fy0, fx1, fy1, weight) in regions {
            let x0 = Int(fx0 * Float(width))
            let x1 = max(x0 + 1, Int(fx1 * Float(width)))
            let y0 = Int(fy0 * Float(height))
            let y1 = max(y0 + 1, Int(fy1 * Float(height)))
            var colour = [Float](repeating: 0, count: colourBins)
            // The last bin is "flat": a constant per pixel, so that a smooth picture's faint
            // gradients (and the JPEG block edges among them) do not fill a whole histogram.
            var orient = [Float](repeating: 0, count: orientationBins + 1)
            for y in y0..<min(y1, height) {
                for x in x0..<min(x1, width) {
                    let pixel = y * width + x
                    // Soft everywhere: a pixel slides continuously between grey and colour, and
                    // between the two saturation levels, so small changes move little mass.
                    let saturation = min(sat[pixel] / meanSat, 2) * min(1, luma[pixel] / 24)
                    colour[colourBins - 1] += max(0, 1 - saturation / 0.6)
                    if saturation > 0 {
                        let high = min(max((saturation - 0.6) / 0.8, 0), 1)
                        let pos = hue[pixel] * Float(hueBins) - 0.5
                        let lo = Int(pos.rounded(.down))
                        let frac = pos - Float(lo)
                        let lowBin = ((lo % hueBins) + hueBins) % hueBins
                        let highBin = (lowBin + 1) % hueBins
                        colour[lowBin * 2] += (1 - frac) * saturation * (1 - high)
                        colour[lowBin * 2 + 1] += (1 - frac) * saturation * high
                        colour[highBin * 2] += frac * saturation * (1 - high)
                        colour[highBin * 2 + 1] += frac * saturation * high
                    }
                    softAdd(&orient, orientation[pixel], magnitude[pixel])
                }
            }
            orient[orientationBins] = flatGradient * Float((min(y1, height) - y0) * (min(x1, width) - x0))
            append(colour, weight: weight, to: &out)
            append(orient, weight: weight, to: &out)
        }
        // Coarse-scale orientations, for blur.
        let (cw, ch, coarse) = halve(blurred, width, height)
        let (cm, co) = gradients(boxBlur(coarse, cw, ch), cw, ch)
        var coarseOrient = [Float](repeating: 0, count: orientationBins + 1)
        for i in 0..<(cw * ch) { softAdd(&coarseOrient, co[i], cm[i]) }
        coarseOrient[orientationBins] = flatGradient * Float(cw * ch)
        append(coarseOrient, weight: 1.0, to: &out)
        // Mirror-averaged 8 × 8 luminance thumbnail, kept as its 4 distinct columns × 8 rows.
        var thumb = [Float](repeating: 0, count: 64)
        var counts = [Float](repeating: 0, count: 64)
        for y in 0..<height {
            for x in 0..<width {
                let cell = (y * 8 / height) * 8 + (x * 8 / width)
                thumb[cell] += luma[y * width + x]
                counts[cell] += 1
            }
        }
        var half = [Float](repeating: 0, count: 32)
        for row in 0..<8 {
            for col in 0..<4 {
                let left = thumb[row * 8 + col] / max(counts[row * 8 + col], 1)
                let mirrored = thumb[row * 8 + 7 - col] / max(counts[row * 8 + 7 - col], 1)
                half[row * 4 + col] = (left + mirrored) / 2
            }
        }
        let mean = half.reduce(0, +) / 32
        let thumbBlock = half.map { $0 - mean }
        // Standardised, but a nearly uniform picture keeps a small block rather than blown-up noise.
        var energy: Float = 0
        for value in thumbBlock { energy += value * value }
        let scale = 1 / max(energy.squareRoot(), thumbnailContrastFloor)
        for value in thumbBlock { out.append(value * scale * thumbnailWeight) }
        return out
    }

    private static func softAdd(_ hist: inout [Float], _ angle: Float, _ weight: Float) {
        // angle is folded into [0, π/2]; bins are centred at (k + 0.5) · (π/2) / bins.
        let bins = orientationBins
        let pos = angle / (Float.pi / 2) * Float(bins) - 0.5
        let lo = Int(pos.rounded(.down))
        let frac = pos - Float(lo)
        let lowBin = min(max(lo, 0), bins - 1)
        let highBin = min(max(lo + 1, 0), bins - 1)
        hist[lowBin] += (1 - frac) * weight
        hist[highBin] += frac * weight
    }

    private static func append(_ block: [Float], weight: Float, to out: inout [Float]) {
        var rooted = block.map { $0.squareRoot() }
        normalize(&rooted)
        for value in rooted { out.append(value * weight) }
    }

    static func normalize(_ vector: inout [Float]) {
        var sum: Float = 0
        for component in vector { sum += component * component }
        guard sum > 0 else { return }
        let inv = 1 / sum.squareRoot()
        for i in vector.indices { vector[i] *= inv }
    }

    private static func boxBlur(_ src: [Float], _ width: Int, _ height: Int) -> [Float] {
        var out = src
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                var count: Float = 0
                for dy in -1...1 {
                    let yy = y + dy
                    if yy < 0 || yy >= height { continue }
                    for dx in -1...1 {
                        let xx = x + dx
                        if xx < 0 || xx >= width { continue }
                        sum += src[yy * width + xx]
                        count += 1
                    }
                }
                out[y * width + x] = sum / count
            }
        }
        return out
    }

    /// Gradient magnitude and folded orientation in [0, π/2].
    private static func gradients(_ luma: [Float], _ width: Int, _ height: Int) -> ([Float], [Float]) {
        var mag = [Float](repeating: 0, count: width * height)
        var ori = [Float](repeating: 0, count: width * height)
        guard width >= 3, height >= 3 else { return (mag, ori) }
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let pixel = y * width + x
                let gx = luma[pixel + 1] - luma[pixel - 1]
                let gy = luma[pixel + width] - luma[pixel - width]
                let length = (gx * gx + gy * gy).squareRoot()
                mag[pixel] = length
                var theta = atan2(gy, gx)  // -π...π
                if theta < 0 { theta += .pi }  // unsigned: 0...π
                ori[pixel] = min(theta, .pi - theta)  // mirror-folded: 0...π/2
            }
        }
        return (mag, ori)
    }

    private static func halve(_ src: [Float], _ width: Int, _ height: Int) -> (Int, Int, [Float]) {
        let hw = max(1, width / 2)
        let hh = max(1, height / 2)
        var out = [Float](repeating: 0, count: hw * hh)
        for y in 0..<hh {
            for x in 0..<hw {
                var sum: Float = 0
                var count: Float = 0
                for yy in (y * 2)..<min(y * 2 + 2, height) {
                    for xx in (x * 2)..<min(x * 2 + 2, width) {
                        sum += src[yy * width + xx]
                        count += 1
                    }
                }
                out[y * hw + x] = sum / max(count, 1)
            }
        }
        return (hw, hh, out)
    }
}
