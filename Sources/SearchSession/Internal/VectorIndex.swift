internal import CVectorKernels

/// An exact nearest-neighbour scan over the prints of one model.
///
/// Vectors are L2-normalised at build time and stored contiguously; the distance between two
/// prints is `1 − cosine similarity`, in 0...2. The scan runs in our C kernels (CVectorKernels):
/// on CPUs with AVX2, FMA and F16C it first reads a float16 copy of each row (half the memory
/// traffic, which is what bounds a scan this size) and computes the float32 distance only for rows
/// whose rigorous lower bound can still enter the answer, so the result is the exact scan's, bit
/// for bit. Elsewhere a portable float32 scan runs. The float16 copy costs half as much memory
/// again as the rows.
///
/// Internal to the engine; the `Benchmarks` SPI lets bench/vector time the very same scan.
@_spi(Benchmarks) public struct VectorIndex: Sendable {
    /// The model whose prints this index holds.
    public let model: String
    /// The length of every print of the model.
    public let dimension: Int
    private(set) var rows: [Float] = []
    private(set) var docs: [Int32] = []
    /// The float16 copy of every row, `cvk_half_stride(dimension)` values each (zero padded).
    private(set) var halfRows: [UInt16] = []
    /// The largest per-row error allowance of the float16 copy (see `cvk_encode_half_row`).
    private(set) var halfAllowance: Double = 0

    /// The kernel every search runs on this CPU, for benchmark reports.
    public static var kernelDescription: String {
        switch VectorKernel.best {
        case .avx2: "AVX2 float16 filter + exact float32"
        case .portable: "portable float32"
        }
    }

    /// An empty index for prints of `model`, each of `dimension` values.
    public init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }

    /// Adds the print of document `doc`, normalised to unit length.
    public mutating func add(doc: Int32, values: [Float]) {
        precondition(values.count == dimension)
        var unit = values
        FeaturePrinter.normalize(&unit)
        rows.append(contentsOf: unit)
        docs.append(doc)
        let stride = cvk_half_stride(dimension)
        let start = halfRows.count
        halfRows.append(contentsOf: repeatElement(0, count: stride))
        let allowance = halfRows.withUnsafeMutableBufferPointer { half in
            unit.withUnsafeBufferPointer { cvk_encode_half_row($0.baseAddress!, dimension, half.baseAddress! + start) }
        }
        halfAllowance = max(halfAllowance, allowance)
    }

    /// The `limit` rows nearest to `query` within `maxDistance`, nearest first (ties by document
    /// order of addition), with the fastest kernel this CPU runs.
    public func search(_ query: [Float], maxDistance: Float, limit: Int) -> [(doc: Int32, distance: Float)] {
        search(query, maxDistance: maxDistance, limit: limit, kernel: .best, filter: true)
    }

    /// ``search(_:maxDistance:limit:)`` reading every row in float32 (no float16 filter pass), so
    /// bench/vector can show what the filter adds to the kernel alone. Same answer.
    public func searchWithoutFilter(
        _ query: [Float], maxDistance: Float, limit: Int
    ) -> [(doc: Int32, distance: Float)] {
        search(query, maxDistance: maxDistance, limit: limit, kernel: .best, filter: false)
    }

    /// ``search(_:maxDistance:limit:)`` with the kernel chosen by the caller, and the float16
    /// filter pass on or off (it only exists in the AVX2 kernel); tests force each path this way.
    func search(
        _ query: [Float], maxDistance: Float, limit: Int, kernel: VectorKernel, filter: Bool
    ) -> [(doc: Int32, distance: Float)] {
        rows.withUnsafeBufferPointer { rows in
            halfRows.withUnsafeBufferPointer { half in
                docs.withUnsafeBufferPointer { docs in
                    VectorRows(
                        dimension: dimension, rows: rows, halfRows: half, halfAllowance: halfAllowance,
                        docs: UnsafeBufferPointer(
                            start: UnsafeRawPointer(docs.baseAddress)?.assumingMemoryBound(to: UInt32.self),
                            count: docs.count)
                    ).search(query, maxDistance: maxDistance, limit: limit, kernel: kernel, filter: filter)
                }
            }
        }
    }
}

/// Unit rows of one model's prints in place (a segment's sections, or an index's arrays), and
/// the scan over them. The buffers are read-only views of memory their owner keeps alive.
struct VectorRows: @unchecked Sendable {
    let dimension: Int
    let rows: UnsafeBufferPointer<Float>
    let halfRows: UnsafeBufferPointer<UInt16>
    let halfAllowance: Double
    /// The document of each row.
    let docs: UnsafeBufferPointer<UInt32>

    /// The row of document `doc`, if it has one (rows are in document order).
    func row(of doc: UInt32) -> Int? {
        var low = 0
        var high = docs.count
        while low < high {
            let mid = (low + high) / 2
            if docs[mid] < doc { low = mid + 1 } else { high = mid }
        }
        return low < docs.count && docs[low] == doc ? low : nil
    }

    /// The `limit` rows nearest to `query` within `maxDistance`, nearest first (ties by row order).
    func search(
        _ query: [Float], maxDistance: Float, limit: Int, kernel: VectorKernel = .best, filter: Bool = true
    ) -> [(doc: Int32, distance: Float)] {
        precondition(query.count == dimension)
        let capacity = min(max(limit, 0), docs.count)
        guard capacity > 0 else { return [] }
        var unitQuery = query
        FeaturePrinter.normalize(&unitQuery)
        var found = [UInt32](repeating: 0, count: capacity)
        var distances = [Float](repeating: 0, count: capacity)
        var matrix = cvk_matrix(
            rows: rows.baseAddress, count: docs.count, dimension: dimension,
            half_rows: filter && !halfRows.isEmpty ? halfRows.baseAddress : nil, half_allowance: halfAllowance)
        let count = cvk_search(kernel.cKernel, &matrix, unitQuery, maxDistance, capacity, &found, &distances)
        return (0..<count).map { (doc: Int32(bitPattern: docs[Int(found[$0])]), distance: distances[$0]) }
    }
}

/// Which C kernel a scan runs: the portable one, or AVX2 + FMA + F16C where the CPU has them.
enum VectorKernel: Sendable, CaseIterable {
    case portable
    case avx2

    /// The fastest kernel this CPU runs, decided once.
    static let best: VectorKernel = cvk_best_kernel() == CVK_KERNEL_AVX2 ? .avx2 : .portable

    /// Whether this CPU can run the kernel.
    var isAvailable: Bool { cvk_kernel_available(cKernel) != 0 }

    /// The dot product of `a` and `b` exactly as a scan with this kernel computes it for one row.
    func dot(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count)
        return cvk_dot(cKernel, a, b, a.count)
    }

    fileprivate var cKernel: cvk_kernel {
        switch self {
        case .portable: CVK_KERNEL_PORTABLE
        case .avx2: CVK_KERNEL_AVX2
        }
    }
}
