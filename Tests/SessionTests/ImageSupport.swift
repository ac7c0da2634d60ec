@testable import SearchSession

/// Tightly packed RGB8 test images and the perturbations a camera applies.
struct RGBImage: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    var buffer: PixelBuffer {
        PixelBuffer(width: width, height: height, bytesPerRow: width * 3, format: .rgb8, bytes: pixels)
    }

    subscript(x: Int, y: Int, c: Int) -> UInt8 { pixels[(y * width + x) * 3 + c] }

    /// A random scene: a gradient background, rectangles, discs and stripes in random colours.
    static func scene(seed: UInt64, width: Int = 240, height: Int = 180) -> RGBImage {
        var rng = SplitMix64(state: seed &* 7919 &+ 13)
        func colour() -> (Float, Float, Float) {
            (
                Float.random(in: 0...255, using: &rng), Float.random(in: 0...255, using: &rng),
                Float.random(in: 0...255, using: &rng)
            )
        }
        let top = colour()
        let bottom = colour()
        var px = [Float](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let t = Float(y) / Float(height - 1)
            for x in 0..<width {
                let i = (y * width + x) * 3
                px[i] = top.0 * (1 - t) + bottom.0 * t
                px[i + 1] = top.1 * (1 - t) + bottom.1 * t
                px[i + 2] = top.2 * (1 - t) + bottom.2 * t
            }
        }
        for _ in 0..<Int.random(in: 4...9, using: &rng) {
            let c = colour()
            let kind = Int.random(in: 0..<3, using: &rng)
            let cx = Float.random(in: 0...Float(width), using: &rng)
            let cy = Float.random(in: 0...Float(height), using: &rng)
            let r = Float.random(in: 12...70, using: &rng)
            let angle = Float.random(in: 0...3.14, using: &rng)
            let period = Float.random(in: 6...20, using: &rng)
            for y in 0..<height {
                for x in 0..<width {
                    let dx = Float(x) - cx
                    let dy = Float(y) - cy
                    let inside: Bool
                    switch kind {
                    case 0: inside = abs(dx) < r && abs(dy) < r * 0.6
                    case 1: inside = dx * dx + dy * dy < r * r
                    default:
                        let u = dx * cosApprox(angle) + dy * sinApprox(angle)
                        inside = dx * dx + dy * dy < r * r * 2 && Int((u / period).rounded(.down)) % 2 == 0
                    }
                    if inside {
                        let i = (y * width + x) * 3
                        px[i] = c.0
                        px[i + 1] = c.1
                        px[i + 2] = c.2
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: px.map { UInt8(max(0, min(255, $0))) })
    }

    func map(_ f: (Float) -> Float) -> RGBImage {
        RGBImage(width: width, height: height, pixels: pixels.map { UInt8(max(0, min(255, f(Float($0))))) })
    }

    func mirrored() -> RGBImage {
        var out = self
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { out.pixels[(y * width + x) * 3 + c] = self[width - 1 - x, y, c] }
            }
        }
        return out
    }

    func cropped(x0: Int, y0: Int, w: Int, h: Int) -> RGBImage {
        var out = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 3))
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 { out.pixels[(y * w + x) * 3 + c] = self[x0 + x, y0 + y, c] }
            }
        }
        return out
    }

    func centreCrop(_ fraction: Double) -> RGBImage {
        let w = Int(Double(width) * fraction)
        let h = Int(Double(height) * fraction)
        return cropped(x0: (width - w) / 2, y0: (height - h) / 2, w: w, h: h)
    }

    func scaled(_ factor: Double) -> RGBImage {
        let w = max(1, Int(Double(width) * factor))
        let h = max(1, Int(Double(height) * factor))
        var out = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 3))
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 { out.pixels[(y * w + x) * 3 + c] = self[x * width / w, y * height / h, c] }
            }
        }
        return out
    }

    func blurred(radius: Int) -> RGBImage {
        var out = self
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    var s = 0
                    var n = 0
                    for dy in -radius...radius {
                        for dx in -radius...radius {
                            let xx = x + dx
                            let yy = y + dy
                            if xx >= 0 && xx < width && yy >= 0 && yy < height {
                                s += Int(self[xx, yy, c])
                                n += 1
                            }
                        }
                    }
                    out.pixels[(y * width + x) * 3 + c] = UInt8(s / n)
                }
            }
        }
        return out
    }

    func rotated(degrees: Float) -> RGBImage {
        let a = degrees * .pi / 180
        let (ca, sa) = (cosApprox(a), sinApprox(a))
        var out = self
        let cx = Float(width) / 2
        let cy = Float(height) / 2
        for y in 0..<height {
            for x in 0..<width {
                let dx = Float(x) - cx
                let dy = Float(y) - cy
                let sx = min(max(Int(ca * dx + sa * dy + cx), 0), width - 1)
                let sy = min(max(Int(-sa * dx + ca * dy + cy), 0), height - 1)
                for c in 0..<3 { out.pixels[(y * width + x) * 3 + c] = self[sx, sy, c] }
            }
        }
        return out
    }

    func jpegRoundTrip(quality: Int) throws -> RGBImage {
        let bytes = try ImageEncoder.jpeg(width: width, height: height, rgb: pixels, quality: quality)
        let decoded = try ImageDecoder.decode(bytes)
        return RGBImage(width: decoded.width, height: decoded.height, pixels: decoded.bytes)
    }
}

func sinApprox(_ x: Float) -> Float {
    // Taylor series around 0 after reducing to [-π, π]; plenty for test images.
    var x = x
    while x > .pi { x -= 2 * .pi }
    while x < -.pi { x += 2 * .pi }
    var term = x
    var sum = x
    for n in 1..<10 {
        term *= -x * x / Float((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}

func cosApprox(_ x: Float) -> Float { sinApprox(x + .pi / 2) }

func distance(_ a: FeaturePrint, _ b: FeaturePrint) -> Float {
    var dot: Float = 0
    for i in a.values.indices { dot += a.values[i] * b.values[i] }
    return 1 - dot
}
