/// gRPC Length-Prefixed-Message framing: a compressed-flag byte, a 4-byte big-endian length,
/// then the message.
enum Envelope {
    /// The size of the prefix.
    static let headerSize = 5

    /// Frames a message, compressing it when `compression` is not identity.
    ///
    /// - Throws: `ZlibError` if compression fails.
    static func frame(_ message: [UInt8], compression: CompressionAlgorithm) throws(ZlibError) -> [UInt8] {
        var out = [UInt8]()
        if compression == .identity {
            out.reserveCapacity(headerSize + message.count)
            appendHeader(to: &out, compressed: false, length: message.count)
            out.append(contentsOf: message)
            return out
        }
        out.append(contentsOf: [1, 0, 0, 0, 0])
        try ZlibPool.shared.withCompressor(compression) { (compressor) throws(ZlibError) in
            let result: Result<Void, ZlibError> = message.withUnsafeBytes { raw in
                Result { () throws(ZlibError) in try compressor.compress(raw, appendingTo: &out) }
            }
            try result.get()
        }
        let length = UInt32(out.count - headerSize)
        out[1] = UInt8(truncatingIfNeeded: length >> 24)
        out[2] = UInt8(truncatingIfNeeded: length >> 16)
        out[3] = UInt8(truncatingIfNeeded: length >> 8)
        out[4] = UInt8(truncatingIfNeeded: length)
        return out
    }

    static func appendHeader(to out: inout [UInt8], compressed: Bool, length: Int) {
        let length = UInt32(length)
        out.append(compressed ? 1 : 0)
        out.append(UInt8(truncatingIfNeeded: length >> 24))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
    }
}

/// Why a received byte stream is not a valid sequence of messages.
struct DeframingError: Error, Hashable, CustomStringConvertible {
    enum Code: Hashable {
        /// The flag byte was neither 0 nor 1.
        case badFlag
        /// The length prefix exceeds the receive limit.
        case tooLarge
        /// The stream ended inside a message.
        case truncated
    }
    var code: Code
    var message: String
    var description: String { message }

    /// The gRPC status code this maps to.
    var statusCode: Status.Code { code == .tooLarge ? .resourceExhausted : .internalError }
}

/// Splits a byte stream that arrives in arbitrary chunks into messages.
///
/// The length prefix is checked against the limit before any of the message is buffered.
struct MessageDeframer {
    /// The largest message length accepted in a prefix.
    let maxMessageBytes: Int
    private var header: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
    private var headerCount = 0
    private var body: [UInt8] = []
    private var expected = 0
    private var inBody = false

    init(maxMessageBytes: Int) { self.maxMessageBytes = maxMessageBytes }

    /// Whether some bytes of an unfinished message are buffered.
    var hasPartialMessage: Bool { headerCount > 0 || inBody }

    /// Consumes a chunk, calling `onMessage(compressed, bytes)` for each completed message.
    ///
    /// - Throws: `DeframingError` for a bad flag or an oversized length prefix.
    mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>, onMessage: (Bool, [UInt8]) throws(DeframingError) -> Void
    ) throws(DeframingError) {
        var index = 0
        while index < chunk.count {
            if !inBody {
                while headerCount < 5 && index < chunk.count {
                    switch headerCount {
                    case 0: header.0 = chunk[index]
                    case 1: header.1 = chunk[index]
                    case 2: header.2 = chunk[index]
                    case 3: header.3 = chunk[index]
                    default: header.4 = chunk[index]
                    }
                    headerCount += 1
                    index += 1
                }
                if headerCount < 5 { return }
                guard header.0 <= 1 else {
                    throw DeframingError(code: .badFlag, message: "invalid compressed-flag byte \(header.0)")
                }
                expected = Int(header.1) << 24 | Int(header.2) << 16 | Int(header.3) << 8 | Int(header.4)
                guard expected <= maxMessageBytes else {
                    throw DeframingError(
                        code: .tooLarge,
                        message: "message of \(expected) bytes exceeds the limit of \(maxMessageBytes) bytes")
                }
                inBody = true
                body = []
                body.reserveCapacity(min(expected, 1 << 16))
            }
            let take = min(expected - body.count, chunk.count - index)
            body.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[index..<index + take]))
            index += take
            if body.count == expected {
                let message = body
                let compressed = header.0 == 1
                body = []
                inBody = false
                headerCount = 0
                try onMessage(compressed, message)
            }
        }
    }

    /// Consumes a chunk held in an array.
    mutating func feed(_ bytes: [UInt8], onMessage: (Bool, [UInt8]) throws(DeframingError) -> Void)
        throws(DeframingError)
    {
        var copy = self
        let result: Result<Void, DeframingError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(DeframingError) in try copy.feed(buffer, onMessage: onMessage) }
        }
        self = copy
        try result.get()
    }

    /// Checks the end of the stream.
    ///
    /// - Throws: `.truncated` when a message was left unfinished.
    func finish() throws(DeframingError) {
        if hasPartialMessage {
            throw DeframingError(code: .truncated, message: "stream ended inside a message")
        }
    }
}

/// Turns a received message into plain bytes according to the stream's `grpc-encoding`.
enum MessageDecoder {
    /// Decodes one message.
    ///
    /// - Parameters:
    ///   - compressed: The flag byte of the envelope.
    ///   - bytes: The message as received.
    ///   - encoding: The stream's `grpc-encoding`, `nil` when absent.
    ///   - limit: The largest decompressed size accepted.
    /// - Throws: `RPCError` with INTERNAL or RESOURCE_EXHAUSTED.
    static func decode(compressed: Bool, bytes: [UInt8], encoding: CompressionAlgorithm?, limit: Int) throws(RPCError)
        -> [UInt8]
    {
        guard compressed else { return bytes }
        guard let encoding, encoding != .identity else {
            throw RPCError(code: .internalError, message: "compressed flag set but no grpc-encoding was sent")
        }
        do throws(ZlibError) {
            return try ZlibPool.shared.withDecompressor(encoding) { (decompressor) throws(ZlibError) in
                let result: Result<[UInt8], ZlibError> = bytes.withUnsafeBytes { raw in
                    Result { () throws(ZlibError) in try decompressor.decompress(raw, limit: limit) }
                }
                return try result.get()
            }
        } catch {
            if error.code == .limitExceeded {
                throw RPCError(code: .resourceExhausted, message: "decompressed message exceeds \(limit) bytes")
            }
            throw RPCError(code: .internalError, message: "could not decompress message: \(error.message)")
        }
    }
}
