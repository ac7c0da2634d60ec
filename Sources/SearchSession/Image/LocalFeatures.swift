internal import CVectorKernels

/// Keypoints and binary descriptors of one picture, for verifying a match by its geometry.
///
/// The picture is reduced to ``workingSide`` pixels on its longer side and turned grey; our C
/// extractor (`lf_extract`, ORB-style: FAST-9 corners on a 5-level pyramid ranked by the Harris
/// response, oriented by the intensity centroid, 256 rotated box-sum tests) keeps the strongest
/// ``maximumCount``. A crop that cuts a corner, a rotation or a photo of a poster from one side
/// keeps many of these keypoints at positions one plane-to-plane map explains, which the global
/// print cannot see (see ``GeometricVerifier``).
///
/// Positions are in working-size pixels, so catalog pictures and queries are compared at one
/// scale whatever their source resolution.
@_spi(Benchmarks) public struct LocalFeatures: Sendable, Hashable {
    /// The longer side pictures are reduced to before keypoints are found. At 256 rather than
    /// 320 px a query's keypoints take about a quarter less time (p99 of a camera query at
    /// 10,000 catalog rows 17.7 → 15.1 ms), and with the rule recalibrated on tune the test
    /// families lost no recall (bench/quality/README.md); small and blurred queries are left to
    /// the global print anyway.
    public static let workingSide = 256
    /// The most keypoints kept per picture (36 bytes each once stored).
    public static let maximumCount = 300
    /// The bytes of one descriptor.
    public static let descriptorBytes = Int(LF_DESCRIPTOR_BYTES)

    /// x, y of each keypoint, in working-size pixels.
    public var positions: [Float]
    /// ``descriptorBytes`` bytes per keypoint, in keypoint order.
    public var descriptors: [UInt8]

    /// The number of keypoints.
    public var count: Int { positions.count / 2 }

    /// Features as stored: positions and descriptors of the same number of keypoints.
    public init(positions: [Float], descriptors: [UInt8]) {
        precondition(positions.count % 2 == 0 && descriptors.count == positions.count / 2 * Self.descriptorBytes)
        self.positions = positions
        self.descriptors = descriptors
    }

    /// Finds and describes the keypoints of a valid pixel buffer.
    public static func extract(_ buffer: PixelBuffer) -> LocalFeatures {
        extract(reduced: PixelReducer.reduce(buffer, maxSide: workingSide))
    }

    static func extract(reduced image: ReducedImage) -> LocalFeatures {
        let pixels = image.width * image.height
        var grey = [UInt8](repeating: 0, count: pixels)
        for index in 0..<pixels {
            let luma =
                0.299 * image.rgb[index * 3] + 0.587 * image.rgb[index * 3 + 1] + 0.114 * image.rgb[index * 3 + 2]
            grey[index] = UInt8(min(max(luma.rounded(), 0), 255))
        }
        var positions = [Float](repeating: 0, count: maximumCount * 2)
        var descriptors = [UInt8](repeating: 0, count: maximumCount * descriptorBytes)
        let found = positions.withUnsafeMutableBufferPointer { positions in
            descriptors.withUnsafeMutableBufferPointer { descriptors in
                Int(
                    lf_extract(
                        grey, Int32(image.width), Int32(image.height), Int32(maximumCount), positions.baseAddress!,
                        descriptors.baseAddress!))
            }
        }
        return LocalFeatures(
            positions: Array(positions.prefix(found * 2)),
            descriptors: Array(descriptors.prefix(found * descriptorBytes)))
    }
}
