internal import CVectorKernels

/// Whether a query shows a catalog picture, judged by keypoints that one plane-to-plane map
/// carries onto the query's: the count of such inliers.
///
/// Matches are nearest descriptors within ``maximumHammingDistance`` bits that pass Lowe's ratio
/// test (``ratio``); RANSAC then tries affine maps through three matches each (mirror maps and
/// implausible scales refused) and refines the best to a homography, for a poster photographed
/// from one side. A picture that is not the candidate leaves a handful of chance inliers; the
/// same picture cropped, turned or tilted leaves tens. Where the line between them lies is
/// ``ImageMatchRule``'s business, calibrated on bench/quality's tune families.
@_spi(Benchmarks) public enum GeometricVerifier {
    /// The largest Hamming distance (of 256 bits) a descriptor match may have.
    static let maximumHammingDistance: Int32 = 64
    /// The nearest candidate descriptor must be this much closer than the second nearest.
    static let ratio: Float = 0.8
    /// How far (working-size pixels) a mapped keypoint may land from its match and count.
    static let tolerance: Float = 6
    /// The most RANSAC rounds; fewer when a good map turns up early.
    static let iterations: Int32 = 500
    /// The fixed seed of RANSAC's random choices, so that an answer never changes between runs.
    static let seed: UInt32 = 0x5EED_1E55

    /// The number of `query` keypoints the best map from `candidate` explains (0 when fewer than
    /// four descriptors match).
    public static func inliers(_ query: LocalFeatures, _ candidate: LocalFeatures) -> Int {
        query.positions.withUnsafeBufferPointer { queryPositions in
            query.descriptors.withUnsafeBufferPointer { queryDescriptors in
                candidate.positions.withUnsafeBufferPointer { candidatePositions in
                    candidate.descriptors.withUnsafeBufferPointer { candidateDescriptors in
                        inliers(
                            query: (queryPositions, queryDescriptors),
                            candidate: (candidatePositions, candidateDescriptors))
                    }
                }
            }
        }
    }

    /// ``inliers(_:_:)`` over features in place (positions, descriptors), such as a mapped file's.
    static func inliers(
        query: (positions: UnsafeBufferPointer<Float>, descriptors: UnsafeBufferPointer<UInt8>),
        candidate: (positions: UnsafeBufferPointer<Float>, descriptors: UnsafeBufferPointer<UInt8>)
    ) -> Int {
        let queryCount = query.positions.count / 2
        let candidateCount = candidate.positions.count / 2
        guard queryCount >= 4, candidateCount >= 4 else { return 0 }
        var pairs = [Int32](repeating: 0, count: 2 * queryCount)
        let matched = lf_match(
            query.descriptors.baseAddress, Int32(queryCount), candidate.descriptors.baseAddress,
            Int32(candidateCount), maximumHammingDistance, ratio, &pairs)
        return Int(
            lf_verify(
                query.positions.baseAddress, candidate.positions.baseAddress, pairs, matched, tolerance, iterations,
                seed))
    }
}
