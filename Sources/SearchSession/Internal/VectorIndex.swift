/// An exact nearest-neighbour scan over the prints of one model.
///
/// Vectors are L2-normalised at build time and stored contiguously; the distance between two
/// prints is `1 − cosine similarity`, in 0...2. The scan is a SIMD dot product over every row:
/// exact, no approximation.
struct VectorIndex: Sendable {
    let model: String
    let dimension: Int
    private(set) var rows: [Float] = []
    private(set) var docs: [Int32] = []

    init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }

    mutating func add(doc: Int32, values: [Float]) {
        var v = values
        FeaturePrinter.normalize(&v)
        rows.append(contentsOf: v)
        docs.append(doc)
    }

    /// Rows within `maxDistance` of `query`, nearest first (ties by document number).
    func search(_ query: [Float], maxDistance: Float) -> [(doc: Int32, distance: Float)] {
        precondition(query.count == dimension)
        var q = query
        FeaturePrinter.normalize(&q)
        var out = [(doc: Int32, distance: Float)]()
        let d = dimension
        rows.withUnsafeBufferPointer { rows in
            q.withUnsafeBufferPointer { q in
                for r in 0..<docs.count {
                    let distance = 1 - Self.dot(q.baseAddress!, rows.baseAddress! + r * d, d)
                    if distance <= maxDistance { out.append((docs[r], distance)) }
                }
            }
        }
        out.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.doc < $1.doc }
        return out
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
            acc0 = acc0.addingProduct(x0, y0)
            acc1 = acc1.addingProduct(x1, y1)
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
