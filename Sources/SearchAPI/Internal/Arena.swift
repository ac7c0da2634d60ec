internal import CProtobufC

/// A bump allocator for the C graph of one message being packed.
///
/// The first chunk is stack memory from the caller; larger messages chain heap chunks that
/// are freed together when the arena goes away. Nothing is freed individually, and nothing in the
/// arena outlives the `pack` call it was built for.
struct Arena: ~Copyable {
    /// Stack space tried first; most requests and responses fit.
    static let firstChunkSize = 2048
    /// Enough for every C type in a protobuf-c message.
    static let alignment = 16
    private static let minimumChunkSize = 8192
    private static let headerSize = 16

    private var cursor: UnsafeMutableRawPointer
    private var end: UnsafeMutableRawPointer
    /// The newest heap chunk; each chunk's first word points to the one before.
    private var chunks: UnsafeMutableRawPointer?
    private var nextChunkSize = Arena.minimumChunkSize

    init(firstChunk: UnsafeMutableRawBufferPointer) {
        cursor = firstChunk.baseAddress!
        end = cursor + firstChunk.count
    }

    deinit {
        var chunk = chunks
        while let current = chunk {
            chunk = current.load(as: UnsafeMutableRawPointer?.self)
            current.deallocate()
        }
    }

    /// Uninitialized memory for `count` values of `T`, bound to `T`.
    mutating func allocate<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let byteCount = MemoryLayout<T>.stride * count
        let alignment = MemoryLayout<T>.alignment
        var start = cursor.alignedUp(toMultipleOf: alignment)
        if byteCount > end - start {
            grow(atLeast: byteCount + alignment)
            start = cursor.alignedUp(toMultipleOf: alignment)
        }
        cursor = start + byteCount
        return start.bindMemory(to: T.self, capacity: count)
    }

    private mutating func grow(atLeast byteCount: Int) {
        let size = max(nextChunkSize, byteCount + Arena.headerSize)
        nextChunkSize = min(nextChunkSize * 2, 1 << 20)
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Arena.alignment)
        chunk.storeBytes(of: chunks, as: UnsafeMutableRawPointer?.self)
        chunks = chunk
        cursor = chunk + Arena.headerSize
        end = chunk + size
    }

    /// A NUL-terminated copy of `string`.
    mutating func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        var string = string
        return string.withUTF8 { utf8 in
            let copy = allocate(CChar.self, count: utf8.count + 1)
            if let base = utf8.baseAddress {
                UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: utf8.count)
            }
            copy[utf8.count] = 0
            return copy
        }
    }

    /// A copy of `bytes` as protobuf-c binary data.
    mutating func cBinaryData(_ bytes: [UInt8]) -> ProtobufCBinaryData {
        guard !bytes.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let copy = allocate(UInt8.self, count: bytes.count)
        bytes.withUnsafeBufferPointer { source in
            copy.update(from: source.baseAddress!, count: source.count)
        }
        return ProtobufCBinaryData(len: bytes.count, data: copy)
    }

    /// A copy of a repeated scalar field.
    mutating func cArray<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let copy = allocate(T.self, count: values.count)
        values.withUnsafeBufferPointer { source in
            copy.initialize(from: source.baseAddress!, count: source.count)
        }
        return copy
    }

    /// A repeated field whose elements need converting (strings, bytes, enums, messages).
    mutating func cArray<T, E>(_ values: [E], _ transform: (E, inout Arena) -> T) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let copy = allocate(T.self, count: values.count)
        for index in values.indices {
            (copy + index).initialize(to: transform(values[index], &self))
        }
        return copy
    }

    /// The initialized and filled C message of `message`.
    mutating func cMessage<M: CMessageBridge>(_ message: M) -> UnsafeMutablePointer<M.CMessage> {
        let cMessage = allocate(M.CMessage.self, count: 1)
        M.cInitialize(cMessage)
        message.fillCMessage(cMessage, in: &self)
        return cMessage
    }
}
