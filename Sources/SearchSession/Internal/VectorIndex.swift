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
    /// One pass: four rows at a time share each load of the query (``dot4(_:_:_:)``); a row enters
    /// the kept set only when it beats the current worst, so the cost is the scan plus O(kept) per
    /// improvement.
    public func search(_ query: [Float], maxDistance: Float, limit: Int) -> [(doc: Int32, distance: Float)] {
        precondition(query.count == dimension)
        guard limit > 0 else { return [] }
        var q = query
        FeaturePrinter.normalize(&q)
        let d = dimension
        return rows.withUnsafeBufferPointer { rows in
            q.withUnsafeBufferPointer { q in
                docs.withUnsafeBufferPointer { docs in
                    Self.scan(q.baseAddress!, rows.baseAddress!, docs, d, maxDistance, limit)
                }
            }
        }
    }

    /// The scan itself, over raw buffers and local state only (no captured variables, so no
    /// run-time exclusivity checks inside the loop).
    private static func scan(
        _ q: UnsafePointer<Float>, _ base: UnsafePointer<Float>, _ docs: UnsafeBufferPointer<Int32>, _ d: Int,
        _ maxDistance: Float, _ limit: Int
    ) -> [(doc: Int32, distance: Float)] {
        var kept = [(doc: Int32, distance: Float)]()
        kept.reserveCapacity(min(limit, docs.count) + 1)
        var worst = maxDistance
        var r = 0
        while r + 4 <= docs.count {
            let dots = dot4(q, base + r * d, d)
            // One comparison for the four, as most blocks hold no candidate at all.
            if any(1 - dots .<= worst) {
                for k in 0..<4 { consider(docs[r + k], 1 - dots[k], &kept, &worst, limit) }
            }
            r += 4
        }
        while r < docs.count {
            consider(docs[r], 1 - dot(q, base + r * d, d), &kept, &worst, limit)
            r += 1
        }
        return kept
    }

    /// Keeps `doc` when it is within `worst`, in order, and tightens `worst` once `limit` are kept.
    ///
    @inline(__always)
    private static func consider(
        _ doc: Int32, _ distance: Float, _ kept: inout [(doc: Int32, distance: Float)], _ worst: inout Float,
        _ limit: Int
    ) {
        guard distance <= worst else { return }
        // Insert in order (rows are scanned in document order, so ties keep it).
        var i = kept.count
        while i > 0 && kept[i - 1].distance > distance { i -= 1 }
        kept.insert((doc: doc, distance: distance), at: i)
        if kept.count > limit {
            kept.removeLast()
            worst = kept[kept.count - 1].distance
        }
    }

    /// The dot product of `a` with each of the four consecutive rows of `n` values at `rows`.
    ///
    /// Each row is summed in exactly the order ``dot(_:_:_:)`` uses, so a row's distance does not
    /// depend on where in a block it falls.
    @inline(__always)
    static func dot4(_ a: UnsafePointer<Float>, _ rows: UnsafePointer<Float>, _ n: Int) -> SIMD4<Float> {
        var acc0 = SIMD8<Float>()
        var acc1 = SIMD8<Float>()
        var acc2 = SIMD8<Float>()
        var acc3 = SIMD8<Float>()
        let ra = UnsafeRawPointer(a)
        let r0 = UnsafeRawPointer(rows)
        let r1 = r0 + n * 4
        let r2 = r1 + n * 4
        let r3 = r2 + n * 4
        var i = 0
        while i + 8 <= n {
            let x = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc0 += x * r0.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc1 += x * r1.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc2 += x * r2.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc3 += x * r3.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sums = SIMD4<Float>(acc0.sum(), acc1.sum(), acc2.sum(), acc3.sum())
        while i < n {
            sums[0] += a[i] * rows[i]
            sums[1] += a[i] * rows[n + i]
            sums[2] += a[i] * rows[2 * n + i]
            sums[3] += a[i] * rows[3 * n + i]
            i += 1
        }
        return sums
    }

    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a)
        let rb = UnsafeRawPointer(b)
        while i + 8 <= n {
            acc +=
                ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = acc.sum()
        while i < n {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }
}
