import Testing

@_spi(Benchmarks) @testable import SearchSession

@Suite struct LocalFeaturesTests {
    /// A picture with corners whose surroundings differ: the image tests' scene of rectangles,
    /// discs and stripes (whose corners alone look alike from one scene to another, unlike photos
    /// of different things) over value noise of four octaves per channel.
    static func scene(_ seed: UInt64) -> RGBImage {
        let width = 320
        let height = 240
        var rng = SplitMix64(state: seed &* 7919 &+ 13)
        var pixels = RGBImage.scene(seed: seed, width: width, height: height).pixels.map { Float($0) - 128 }
        for channel in 0..<3 {
            for octave in 0..<4 {
                let cell = 48 >> octave
                let columns = width / cell + 2
                let rows = height / cell + 2
                let lattice = (0..<(columns * rows)).map { _ in Float.random(in: -1...1, using: &rng) }
                let amplitude = Float(60 >> octave)
                for y in 0..<height {
                    let fy = Float(y) / Float(cell)
                    let y0 = Int(fy)
                    let ty = fy - Float(y0)
                    for x in 0..<width {
                        let fx = Float(x) / Float(cell)
                        let x0 = Int(fx)
                        let tx = fx - Float(x0)
                        let top = lattice[y0 * columns + x0] * (1 - tx) + lattice[y0 * columns + x0 + 1] * tx
                        let bottom =
                            lattice[(y0 + 1) * columns + x0] * (1 - tx) + lattice[(y0 + 1) * columns + x0 + 1] * tx
                        pixels[(y * width + x) * 3 + channel] += amplitude * (top * (1 - ty) + bottom * ty)
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels.map { UInt8(max(0, min(255, $0 + 128))) })
    }

    static let geometric: [(String, @Sendable (RGBImage) -> RGBImage)] = [
        ("corner crop 70%", { $0.cropped(x0: 0, y0: 0, w: $0.width * 7 / 10, h: $0.height * 7 / 10) }),
        ("rotate 10°", { $0.rotated(degrees: 10) }),
        ("rotate -15°", { $0.rotated(degrees: -15) }),
        ("centre crop 60%", { $0.centreCrop(0.6) }),
    ]

    @Test("a cropped or turned picture keeps many keypoints one map explains", arguments: 0..<4)
    func geometricPerturbationVerifies(perturbation: Int) {
        let (name, perturb) = Self.geometric[perturbation]
        for seed: UInt64 in [3, 11, 29] {
            let picture = Self.scene(seed)
            let catalog = LocalFeatures.extract(picture.buffer)
            let query = LocalFeatures.extract(perturb(picture).buffer)
            let inliers = GeometricVerifier.inliers(query, catalog)
            #expect(inliers >= 20, "\(name), scene \(seed): \(inliers) inliers")
        }
    }

    @Test("a different picture leaves only chance inliers")
    func unrelatedPictureDoesNotVerify() {
        for (query, candidate): (UInt64, UInt64) in [(3, 11), (11, 29), (29, 41), (41, 3)] {
            let inliers = GeometricVerifier.inliers(
                LocalFeatures.extract(Self.scene(query).buffer), LocalFeatures.extract(Self.scene(candidate).buffer))
            #expect(inliers < ImageMatchRule.minimumInliers, "scene \(query) against \(candidate): \(inliers)")
        }
    }

    @Test("features are found at the working size and are the same every time")
    func extractionIsDeterministic() throws {
        let picture = Self.scene(7).scaled(1.5)
        let first = LocalFeatures.extract(picture.buffer)
        #expect(first == LocalFeatures.extract(picture.buffer))
        #expect(first.count > 50 && first.count <= LocalFeatures.maximumCount)
        let largest = try #require(first.positions.max())
        #expect(largest < Float(LocalFeatures.workingSide))
    }

    /// FNV-1a over the positions' bits and the descriptors' bytes.
    static func fingerprint(_ features: LocalFeatures) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for position in features.positions { withUnsafeBytes(of: position.bitPattern.littleEndian) { $0.forEach(mix) } }
        features.descriptors.forEach(mix)
        return hash
    }

    /// The extractor's output is part of the stored `.vlf` files and of every calibrated threshold:
    /// a faster extractor must find the same keypoints and set the same bits. The fingerprint was
    /// recorded from the first extractor (before its loops were rewritten for speed); the
    /// rewritten one gave the same keypoints and descriptors on the 400 gallery queries too.
    @Test("features are the recorded ones, bit for bit")
    func extractionMatchesTheRecordedOutput() {
        let features = LocalFeatures.extract(Self.scene(7).scaled(1.5).buffer)
        #expect(features.count == 72)
        #expect(Self.fingerprint(features) == 16_345_607_806_380_704_474)
    }

    @Test("a flat or tiny picture has no keypoints and verifies nothing")
    func flatPictureHasNoFeatures() {
        let flat = RGBImage(width: 200, height: 150, pixels: [UInt8](repeating: 128, count: 200 * 150 * 3))
        let tiny = Self.scene(5).scaled(0.05)
        #expect(LocalFeatures.extract(flat.buffer).count == 0)
        #expect(LocalFeatures.extract(tiny.buffer).count == 0)
        let catalog = LocalFeatures.extract(Self.scene(5).buffer)
        #expect(GeometricVerifier.inliers(LocalFeatures.extract(flat.buffer), catalog) == 0)
    }
}

@Suite struct ImageMatchRuleTests {
    static let gap: Float = 0.1

    @Test("a near print is answered without verification")
    func strictPrintAnswers() {
        var asked = [Int32]()
        let answer = ImageMatchRule.choose(
            [(doc: 4, distance: 0.01), (doc: 2, distance: 0.2)], medianCatalogGap: Self.gap
        ) {
            asked.append($0)
            return 0
        }
        #expect(answer?.doc == 4)
        #expect(asked.isEmpty)
    }

    @Test("beyond the strict distance the shortlisted picture with the most inliers wins")
    func verificationPicksTheMostInliers() {
        let shortlist: [(doc: Int32, distance: Float)] = [(1, 0.06), (2, 0.08), (3, 0.5)]
        let inliers: [Int32: Int] = [1: 3, 2: 40, 3: 100]
        let answer = ImageMatchRule.choose(shortlist, medianCatalogGap: Self.gap) { inliers[$0] ?? 0 }
        #expect(answer?.doc == 2)
    }

    @Test("with too few inliers nothing is answered")
    func fewInliersAnswerNothing() {
        let shortlist: [(doc: Int32, distance: Float)] = [(1, 0.06), (2, 0.08)]
        #expect(
            ImageMatchRule.choose(shortlist, medianCatalogGap: Self.gap) { _ in ImageMatchRule.minimumInliers - 1 }
                == nil)
        #expect(ImageMatchRule.choose([], medianCatalogGap: Self.gap) { _ in 100 } == nil)
    }

    @Test("a feature-poor nearest picture is answered on a print distance of its own, a rich one is not")
    func featurePoorPicturesAnswerOnThePrint() {
        // Between the strict distance and the feature-poor one, with no inliers to verify.
        let distance = (ImageMatchRule.strictFraction + ImageMatchRule.poorFraction) / 2 * Self.gap
        let shortlist: [(doc: Int32, distance: Float)] = [(7, distance)]
        let poor = ImageMatchRule.choose(
            shortlist, medianCatalogGap: Self.gap, keypoints: { _ in ImageMatchRule.poorKeypoints - 1 }
        ) { _ in 0 }
        #expect(poor?.doc == 7)
        let rich = ImageMatchRule.choose(
            shortlist, medianCatalogGap: Self.gap, keypoints: { _ in ImageMatchRule.poorKeypoints }
        ) { _ in 0 }
        #expect(rich == nil)
        let beyond = ImageMatchRule.choose(
            [(doc: 7, distance: ImageMatchRule.poorFraction * Self.gap * 1.01)], medianCatalogGap: Self.gap,
            keypoints: { _ in 0 }
        ) { _ in 0 }
        #expect(beyond == nil)
    }
}
