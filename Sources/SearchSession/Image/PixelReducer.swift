/// A small RGB image of floats in 0...255, the input of the feature print.
struct ReducedImage: Sendable {
    var width: Int
    var height: Int
    /// Interleaved red, green, blue.
    var rgb: [Float]
}

/// Shrinks a pixel buffer of any size, format and stride to a small image by area averaging.
///
/// One pass over the source, reading each row through its stride, with memory proportional to the
/// output only: a 5K screenshot (~59 MB) is never copied or converted whole. Very large sources are
/// sampled on a grid of at least four samples per output pixel and axis, which is plenty for an
/// area average.
enum PixelReducer {
    /// Reduces `buffer` so that its longer side is at most `maxSide`, keeping the aspect ratio.
    ///
    /// The buffer must be valid (see ``PixelBuffer/validate()``).
    static func reduce(_ buffer: PixelBuffer, maxSide: Int) -> ReducedImage {
        reduce(buffer, x: 0, y: 0, width: buffer.width, height: buffer.height, maxSide: maxSide)
    }

    /// Reduces the rectangle of `buffer` at (`x`, `y`) of `width` × `height` pixels (inside the
    /// buffer) so that its longer side is at most `maxSide`.
    static func reduce(_ buffer: PixelBuffer, x left: Int, y top: Int, width: Int, height: Int, maxSide: Int)
        -> ReducedImage
    {
        precondition(
            left >= 0 && top >= 0 && width > 0 && height > 0 && left + width <= buffer.width
                && top + height <= buffer.height)
        let scale = min(1, Double(maxSide) / Double(max(width, height)))
        let ow = max(1, Int((Double(width) * scale).rounded()))
        let oh = max(1, Int((Double(height) * scale).rounded()))
        let stepX = max(1, width / (ow * 4))
        let stepY = max(1, height / (oh * 4))
        let columns = stride(from: 0, to: width, by: stepX).map { $0 }
        let targetColumn = columns.map { min(ow - 1, $0 * ow / width) }
        var sums = [Float](repeating: 0, count: ow * oh * 3)
        var counts = [Float](repeating: 0, count: ow * oh)
        let bpp = buffer.format.bytesPerPixel
        let (ri, gi, bi): (Int, Int, Int) =
            switch buffer.format {
            case .bgra8: (2, 1, 0)
            case .rgba8, .rgb8: (0, 1, 2)
            case .gray8: (0, 0, 0)
            }
        buffer.bytes.withUnsafeBufferPointer { src in
            sums.withUnsafeMutableBufferPointer { sums in
                counts.withUnsafeMutableBufferPointer { counts in
                    var y = 0
                    while y < height {
                        let ty = min(oh - 1, y * oh / height)
                        let rowStart = (top + y) * buffer.bytesPerRow + left * bpp
                        for (column, x) in columns.enumerated() {
                            let pixelOffset = rowStart + x * bpp
                            let target = ty * ow + targetColumn[column]
                            sums[target * 3] += Float(src[pixelOffset + ri])
                            sums[target * 3 + 1] += Float(src[pixelOffset + gi])
                            sums[target * 3 + 2] += Float(src[pixelOffset + bi])
                            counts[target] += 1
                        }
                        y += stepY
                    }
                }
            }
        }
        for target in 0..<(ow * oh) {
            let samples = max(counts[target], 1)
            sums[target * 3] /= samples
            sums[target * 3 + 1] /= samples
            sums[target * 3 + 2] /= samples
        }
        return ReducedImage(width: ow, height: oh, rgb: sums)
    }
}
