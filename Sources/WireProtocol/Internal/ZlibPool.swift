import Synchronization

/// Reuses zlib streams across messages, since setting one up allocates a few hundred kilobytes.
///
/// Streams are reset after every message (also after a failed one), so a pooled stream carries
/// nothing from one message to the next.
final class ZlibPool: Sendable {
    /// The pool every connection and client shares.
    static let shared = ZlibPool()

    private final class CompressorBox: @unchecked Sendable {
        var compressor: Zlib.Compressor
        init(_ compressor: consuming Zlib.Compressor) { self.compressor = compressor }
    }

    private final class DecompressorBox: @unchecked Sendable {
        var decompressor: Zlib.Decompressor
        init(_ decompressor: consuming Zlib.Decompressor) { self.decompressor = decompressor }
    }

    /// How many idle streams of each kind are kept.
    private let capacity = 16
    private let compressors = Mutex<[CompressionAlgorithm: [CompressorBox]]>([:])
    private let decompressors = Mutex<[CompressionAlgorithm: [DecompressorBox]]>([:])

    /// Runs `body` with a compressor for `algorithm`, taken from the pool or made.
    func withCompressor<R>(
        _ algorithm: CompressionAlgorithm, _ body: (inout Zlib.Compressor) throws(ZlibError) -> R
    ) throws(ZlibError) -> R {
        let pooled = compressors.withLock { $0[algorithm]?.popLast() }
        let box: CompressorBox
        if let pooled {
            box = pooled
        } else {
            box = CompressorBox(try Zlib.Compressor(algorithm))
        }
        defer {
            compressors.withLock { pool in
                if pool[algorithm, default: []].count < capacity { pool[algorithm, default: []].append(box) }
            }
        }
        return try body(&box.compressor)
    }

    /// Runs `body` with a decompressor for `algorithm`, taken from the pool or made.
    func withDecompressor<R>(
        _ algorithm: CompressionAlgorithm, _ body: (inout Zlib.Decompressor) throws(ZlibError) -> R
    ) throws(ZlibError) -> R {
        let pooled = decompressors.withLock { $0[algorithm]?.popLast() }
        let box: DecompressorBox
        if let pooled {
            box = pooled
        } else {
            box = DecompressorBox(try Zlib.Decompressor(algorithm))
        }
        defer {
            decompressors.withLock { pool in
                if pool[algorithm, default: []].count < capacity { pool[algorithm, default: []].append(box) }
            }
        }
        return try body(&box.decompressor)
    }
}
