import CVectorKernels
import Testing

@_spi(Benchmarks) @testable import SearchSession

/// The C kernels behind `VectorIndex`: each against a plain reference, and the float16 filter
/// pass against the full float32 scan, bit for bit, on random and adversarial data.
@Suite struct VectorKernelTests {
    /// Every kernel this CPU runs: always the portable one, AVX2 where the CPU has it.
    static let kernels = VectorKernel.allCases.filter(\.isAvailable)

    /// Dimensions around the kernels' lane (8) and float16 chunk (16) widths.
    static let dimensions = [1, 3, 5, 7, 8, 9, 15, 16, 17, 31, 37, 64, 100, 128, 129, 200]

    @Test func thePortableKernelRunsEverywhereAndTheBestOneIsAvailable() {
        #expect(VectorKernel.portable.isAvailable)
        #expect(VectorKernel.best.isAvailable)
        #expect((VectorKernel.best == .avx2) == VectorKernel.avx2.isAvailable)
    }

    @Test(arguments: dimensions)
    func eachKernelsDotProductIsWithinRoundingOfTheExactOne(dimension: Int) {
        var rng = SplitMix64(state: UInt64(dimension))
        for _ in 0..<50 {
            let a = (0..<dimension).map { _ in Float.random(in: -4...4, using: &rng) }
            let b = (0..<dimension).map { _ in Float.random(in: -4...4, using: &rng) }
            let exact = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            let magnitude = zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) * Double($1.1)) }
            let m = Double(dimension + 16)
            let bound = m * 0x1p-24 / (1 - m * 0x1p-24) * magnitude
            for kernel in Self.kernels {
                let dot = Double(kernel.dot(a, b))
                #expect(abs(dot - exact) <= bound, "\(kernel) dimension \(dimension): \(dot) vs \(exact)")
            }
        }
    }

    @Test func decodingAFloat16MatchesSwiftsFloat16ForEveryBitPattern() {
        for bits in 0...UInt16.max {
            let expected = Float(Float16(bitPattern: bits))
            let decoded = cvk_half_to_float(bits)
            if expected.isNaN {
                #expect(decoded.isNaN)
            } else {
                #expect(decoded.bitPattern == expected.bitPattern, "bits \(bits)")
            }
        }
    }

    @Test func encodingRoundsToNearestEvenAndSaturatesAtTheFloat16Range() {
        var rng = SplitMix64(state: 16)
        var values: [Float] = [0, -0.0, 1, -1, 65504, 65519.99, 0x1p-14, 0x1p-24, 0x1p-25, 0x1.8p-25, 1e-30, 0.1]
        // Exact ties between two float16 values (an odd and an even mantissa) round to the even one.
        values += [1 + 0x1p-11, 1 + 3 * 0x1p-11, 0x1p-14 + 0x1p-25, 3 * 0x1p-25]
        for _ in 0..<5000 {
            let exponent = Int.random(in: -30...14, using: &rng)  // below 2^15: no saturation
            values.append(
                Float(
                    sign: Bool.random(using: &rng) ? .minus : .plus, exponent: exponent,
                    significand: Float.random(in: 1..<2, using: &rng)))
        }
        var out = [UInt16](repeating: 0xFFFF, count: cvk_half_stride(values.count))
        _ = cvk_encode_half_row(values, values.count, &out)
        for (value, bits) in zip(values, out) {
            #expect(bits == Float16(value).bitPattern, "\(value)")
        }
        #expect(out[values.count...].allSatisfy { $0 == 0 }, "padding is zero")
        var beyond = [UInt16](repeating: 0, count: 16)
        _ = cvk_encode_half_row([65520, -1e30, .infinity], 3, &beyond)
        #expect(Array(beyond.prefix(3)) == [0x7BFF, 0xFBFF, 0x7BFF])
    }

    @Test func aRowsAllowanceCoversItsCopysError() {
        var rng = SplitMix64(state: 7)
        for dimension in Self.dimensions {
            var row = (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) }
            FeaturePrinter.normalize(&row)
            var half = [UInt16](repeating: 0, count: cvk_half_stride(dimension))
            let allowance = cvk_encode_half_row(row, dimension, &half)
            let error = zip(row, half).reduce(0.0) {
                let d = Double($1.0) - Double(cvk_half_to_float($1.1))
                return $0 + d * d
            }.squareRoot()
            #expect(allowance >= error)
            #expect(allowance < 1e-3, "a unit row's float16 copy is within 2^-11 per value")
        }
    }

    /// Every row by brute force, nearest first (ties by document): each distance as `kernel`
    /// computes it for one row.
    static func bruteForce(_ vectors: [[Float]], _ query: [Float], _ kernel: VectorKernel) -> [(
        doc: Int32, distance: Float
    )] {
        var q = query
        FeaturePrinter.normalize(&q)
        return vectors.enumerated().map { doc, v in
            var v = v
            FeaturePrinter.normalize(&v)
            return (doc: Int32(doc), distance: 1 - kernel.dot(q, v))
        }.sorted { ($0.distance, $0.doc) < ($1.distance, $1.doc) }
    }

    /// Every path (each kernel, the AVX2 kernel with and without its float16 filter) returns
    /// exactly the brute-force answer of its own distances.
    static func expectEveryPathExact(
        _ vectors: [[Float]], _ queries: [[Float]], limits: [Int], _ comment: Comment
    ) {
        let dimension = vectors.first?.count ?? queries[0].count
        var index = VectorIndex(model: "m", dimension: dimension)
        for (doc, v) in vectors.enumerated() { index.add(doc: Int32(doc), values: v) }
        for query in queries {
            for kernel in kernels {
                let all = bruteForce(vectors, query, kernel)
                // No cut-off, one between two distances, and one equal to a distance.
                var cuts: [Float] = [2]
                if all.count > 3 { cuts += [(all[2].distance + all[3].distance) / 2, all[1].distance] }
                for cut in cuts {
                    for limit in limits {
                        let expected = all.filter { $0.distance <= cut }.prefix(limit)
                        for filter in kernel == .avx2 ? [false, true] : [false] {
                            let found = index.search(
                                query, maxDistance: cut, limit: limit, kernel: kernel, filter: filter)
                            let path = "\(comment) \(kernel) filter \(filter) limit \(limit) cut \(cut)"
                            #expect(found.map(\.doc) == expected.map(\.doc), "\(path)")
                            #expect(found.map(\.distance.bitPattern) == expected.map(\.distance.bitPattern), "\(path)")
                        }
                    }
                }
            }
        }
    }

    /// Row counts below, at and above the 4-row block, with limits from 1 to beyond the count.
    @Test(arguments: [(0, 16), (1, 7), (3, 5), (4, 128), (5, 17), (9, 3), (1003, 37), (2000, 128), (501, 200)])
    func everyPathReturnsExactlyTheBruteForceAnswerOnRandomData(rows: Int, dimension: Int) {
        var rng = SplitMix64(state: UInt64(rows * 1000 + dimension))
        let vectors = (0..<rows).map { _ in (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) } }
        let queries = (0..<4).map { _ in (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) } }
        Self.expectEveryPathExact(vectors, queries, limits: [1, 10, rows + 5], "random \(rows)×\(dimension)")
    }

    /// Data built to sit inside the float16 copy's error: exact duplicates (ties), rows that differ
    /// from each other and from the query by less than float16 resolution, norms from 1e-30 to
    /// 1e30 (tiny ones stay unnormalised), values in float16's subnormal range, and zero rows.
    @Test(arguments: [8, 37, 128])
    func theFilterNeverChangesTheAnswerOnAdversarialData(dimension: Int) {
        var rng = SplitMix64(state: UInt64(dimension) * 31)
        let centre = (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) }
        var vectors = [[Float]]()
        for i in 0..<600 {
            switch i % 6 {
            case 0: vectors.append(centre)  // ties with each other
            case 1:
                let epsilon = [Float(1e-7), 1e-5, 1e-4, 1e-3][i / 6 % 4]
                vectors.append(centre.map { $0 + Float.random(in: -epsilon...epsilon, using: &rng) })
            case 2:
                let scale = [Float(1e-30), 1e-19, 1e-5, 1e10, 1e30][i / 6 % 5]
                vectors.append(centre.map { $0 * scale })
            case 3:
                // Half the values stay large, so after normalising the others are float16 subnormals.
                vectors.append(
                    centre.enumerated().map { $0 % 2 == 0 ? $1 : $1 * Float.random(in: 0x1p-26...0x1p-14, using: &rng) }
                )
            case 4: vectors.append([Float](repeating: 0, count: dimension))
            default: vectors.append((0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) })
            }
        }
        let queries = [
            centre, centre.map { $0 + Float.random(in: -1e-4...1e-4, using: &rng) }, centre.map { -$0 },
            (0..<dimension).map { _ in Float.random(in: -1...1, using: &rng) }, [Float](repeating: 0, count: dimension),
        ]
        Self.expectEveryPathExact(vectors, queries, limits: [1, 10, 150, 700], "adversarial dimension \(dimension)")
    }

    @Test func thePublicSearchIsTheBestKernelWithItsFilter() {
        var rng = SplitMix64(state: 99)
        var index = VectorIndex(model: "m", dimension: 64)
        for doc in 0..<777 {
            index.add(doc: Int32(doc), values: (0..<64).map { _ in Float.random(in: -1...1, using: &rng) })
        }
        let query = (0..<64).map { _ in Float.random(in: -1...1, using: &rng) }
        let viaPublic = index.search(query, maxDistance: 2, limit: 10)
        let viaBest = index.search(query, maxDistance: 2, limit: 10, kernel: .best, filter: true)
        #expect(viaPublic.map(\.doc) == viaBest.map(\.doc))
        #expect(viaPublic.map(\.distance) == viaBest.map(\.distance))
        #expect(viaPublic.count == 10)
    }
}
