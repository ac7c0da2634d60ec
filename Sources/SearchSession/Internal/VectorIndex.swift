/// An exact nearest-neighbour scan over the prints of one model.
///
/// Vectors are L2-normalised at build time and stored contiguously; the distance between two
/// prints is `1 − cosine similarity`, in 0...2. The scan is a SIMD dot product over every row:
/// exact, no approximation.
///
/// Internal to the engine; the `Benchmarks` SPI lets bench/vector time the very same scan.
@_spi(Benchmarks) public struct VectorIndex: Sendable {
    /// The model whose prints this index holds.
    public let model: String
    /// The length of every print of the model.
    public let dimension: Int
    private(set) var rows: [Float] = []
    private(set) var docs: [Int32] = []

    /// An empty index for prints of `model`, each of `dimension` values.
    public init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }

    /// Adds the print of document `doc`, normalised to unit length.
    public mutating func add(doc: Int32, values: [Float]) {
        var v = values
        FeaturePrinter.normalize(&v)
        rows.append(contentsOf: v)
        docs.append(doc)
    }

    /// The `limit` rows nearest to `query` within `maxDistance`, nearest first (ties by document).
    ///
    /// One pass: each row's distance is a SIMD dot product; a row enters the kept set only when it
    /// beats the current worst, so the cost is the scan plus O(kept) per improvement.
    public func search(_ query: [Float], maxDistance: Float, limit: Int) -> [(doc: Int32, distance: Float)] {
        precondition(query.count == dimension)
        guard limit > 0 else { return [] }
        var q = query
        FeaturePrinter.normalize(&q)
        var kept = [(doc: Int32, distance: Float)]()
        kept.reserveCapacity(min(limit, docs.count) + 1)
        var worst = maxDistance
        let d = dimension
        rows.withUnsafeBufferPointer { rows in
            q.withUnsafeBufferPointer { q in
                docs.withUnsafeBufferPointer { docs in
                    for r in 0..<docs.count {
                        let distance = 1 - Self.dot(q.baseAddress!, rows.baseAddress! + r * d, d)
                        guard distance <= worst else { continue }
                        let entry = (doc: docs[r], distance: distance)
                        // Insert in order (rows are scanned in document order, so ties keep it).
                        var i = kept.count
                        while i > 0 && kept[i - 1].distance > distance { i -= 1 }
                        kept.insert(entry, at: i)
                        if kept.count > limit {
                            kept.removeLast()
                            worst = kept[kept.count - 1].distance
                        }
                    }
                }
            }
        }
        return kept
    }

    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc0 = SIMD8<Float>()
        var acc1 = SIMD8<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a)
        let rb = UnsafeRawPointer(b)
        while i + 16 <= n {
            let x0 = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let y0 = rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let x1 = ra.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
            let y1 = rb.loadUnaligned(fromByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
            acc0 += x0 * y0
            acc1 += x1 * y1
            i += 16
        }
        var sum = (acc0 + acc1).sum()
        while i < n {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }
}
