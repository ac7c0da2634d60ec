internal import CZlib

/// An error from zlib while compressing or decompressing one message.
struct ZlibError: Error, Hashable, CustomStringConvertible {
    enum Code: Hashable {
        /// zlib could not be initialised.
        case initialisation
        /// The input is not valid compressed data, or is truncated.
        case corrupt
        /// The output would exceed the limit.
        case limitExceeded
    }
    var code: Code
    var message: String
    var description: String { "zlib \(code): \(message)" }
}

/// Message compression with zlib, in gzip or zlib ("deflate") format.
enum Zlib {
    /// The zlib `windowBits` selecting the format: +16 asks for a gzip wrapper.
    static func windowBits(for algorithm: CompressionAlgorithm) -> Int32 {
        algorithm == .gzip ? 15 + 16 : 15
    }

    /// A deflate stream; the `z_stream` lives on the heap because zlib keeps its address.
    struct Compressor: ~Copyable {
        private let stream: UnsafeMutablePointer<z_stream>

        init(_ algorithm: CompressionAlgorithm) throws(ZlibError) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let rc = CZlib_deflateInit2(
                stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, Zlib.windowBits(for: algorithm), 8, Z_DEFAULT_STRATEGY)
            guard rc == Z_OK else {
                stream.deallocate()
                throw ZlibError(code: .initialisation, message: "deflateInit2 returned \(rc)")
            }
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }

        /// Compresses one whole message, appending the output to `output`.
        mutating func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws(ZlibError) {
            defer { deflateReset(stream) }
            let bound = Int(deflateBound(stream, uLong(input.count))) + 16
            let start = output.count
            output.append(contentsOf: [UInt8](repeating: 0, count: bound))
            var rc: Int32 = Z_OK
            output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = out.baseAddress! + start
                stream.pointee.avail_out = uInt(bound)
                rc = deflate(stream, Z_FINISH)
            }
            guard rc == Z_STREAM_END else {
                output.removeSubrange(start...)
                throw ZlibError(code: .corrupt, message: "deflate returned \(rc)")
            }
            output.removeLast(Int(stream.pointee.avail_out))
        }
    }

    /// An inflate stream; the `z_stream` lives on the heap because zlib keeps its address.
    struct Decompressor: ~Copyable {
        private let stream: UnsafeMutablePointer<z_stream>

        init(_ algorithm: CompressionAlgorithm) throws(ZlibError) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let rc = CZlib_inflateInit2(stream, Zlib.windowBits(for: algorithm))
            guard rc == Z_OK else {
                stream.deallocate()
                throw ZlibError(code: .initialisation, message: "inflateInit2 returned \(rc)")
            }
        }

        deinit {
            inflateEnd(stream)
            stream.deallocate()
        }

        /// Decompresses one whole message, stopping as soon as the output would pass `limit`
        /// so a small bomb cannot make us allocate much.
        ///
        /// - Throws: `.limitExceeded` past the limit, `.corrupt` on bad or truncated input.
        mutating func decompress(_ input: UnsafeRawBufferPointer, limit: Int) throws(ZlibError) -> [UInt8] {
            defer { inflateReset(stream) }
            var output = [UInt8]()
            var capacity = min(max(input.count * 4, 256), limit + 1)
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                let produced = output.count
                output.append(contentsOf: [UInt8](repeating: 0, count: capacity - produced))
                var rc: Int32 = Z_OK
                output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress! + produced
                    stream.pointee.avail_out = uInt(capacity - produced)
                    rc = inflate(stream, Z_NO_FLUSH)
                }
                let written = capacity - produced - Int(stream.pointee.avail_out)
                output.removeLast(capacity - produced - written)
                if output.count > limit {
                    throw ZlibError(code: .limitExceeded, message: "decompressed message exceeds \(limit) bytes")
                }
                switch rc {
                case Z_STREAM_END:
                    return output
                case Z_OK:
                    if stream.pointee.avail_in == 0 && written == 0 {
                        throw ZlibError(code: .corrupt, message: "truncated compressed message")
                    }
                case Z_BUF_ERROR:
                    if stream.pointee.avail_in == 0 {
                        throw ZlibError(code: .corrupt, message: "truncated compressed message")
                    }
                default:
                    throw ZlibError(code: .corrupt, message: "inflate returned \(rc)")
                }
                if output.count == capacity {
                    if capacity > limit {
                        throw ZlibError(code: .limitExceeded, message: "decompressed message exceeds \(limit) bytes")
                    }
                    capacity = min(capacity * 2, limit + 1)
                }
            }
        }
    }
}
