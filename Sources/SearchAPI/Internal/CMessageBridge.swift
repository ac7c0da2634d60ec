internal import CProtobufC

/// A generated message's link to its protobuf-c twin: the C functions and the field copying.
///
/// Generated conformances only copy fields; validation, unpacking, freeing and packing live in
/// the generic functions below so that every message takes the same, audited path.
protocol CMessageBridge: ProtoMessage {
    /// The protoc-c struct, e.g. `Vicontinue__V1__QueryRequest`.
    associatedtype CMessage

    /// The protoc-c descriptor, which guides validation of the wire bytes.
    static var cDescriptor: UnsafePointer<ProtobufCMessageDescriptor> { get }

    /// Writes the `*__INIT` value (Swift cannot import the macro, so the `*__init` function).
    static func cInitialize(_ message: UnsafeMutablePointer<CMessage>)
    /// `*__unpack` with the default allocator; `nil` when protobuf-c rejects the bytes.
    static func cUnpack(_ count: Int, _ bytes: UnsafePointer<UInt8>) -> UnsafeMutablePointer<CMessage>?
    /// `*__free_unpacked` with the default allocator.
    static func cFreeUnpacked(_ message: UnsafeMutablePointer<CMessage>)
    /// `*__get_packed_size`.
    static func cPackedSize(_ message: UnsafePointer<CMessage>) -> Int
    /// `*__pack`.
    static func cPack(_ message: UnsafePointer<CMessage>, _ out: UnsafeMutablePointer<UInt8>) -> Int

    /// Copies an unpacked C message into Swift values.
    init(cMessage: UnsafePointer<CMessage>)

    /// Fills an initialized C message from this value; everything it points to lives in `arena`.
    func fillCMessage(_ message: UnsafeMutablePointer<CMessage>, in arena: inout Arena)
}

/// The address of a message type's static protobuf-c descriptor.
///
/// Swift imports the `const` descriptor globals as values, so the address is read from the
/// `base.descriptor` of an initialized message instead.
func cMessageDescriptor<CMessage>(
    _ initialize: (UnsafeMutablePointer<CMessage>) -> Void
) -> UnsafePointer<ProtobufCMessageDescriptor> {
    let message = UnsafeMutablePointer<CMessage>.allocate(capacity: 1)
    defer { message.deallocate() }
    initialize(message)
    return UnsafeRawPointer(message).assumingMemoryBound(to: ProtobufCMessage.self).pointee.descriptor
}

/// Validates `bytes` as an `M` without decoding it.
func validateMessage<M: CMessageBridge>(
    _: M.Type,
    _ bytes: some Collection<UInt8>
) throws(MessageDecodingError) {
    let result = withContiguousBytes(bytes) { buffer in
        Result { () throws(MessageDecodingError) in
            try WireValidator.validate(buffer, as: M.cDescriptor)
        }
    }
    try result.get()
}

/// Validates `bytes`, unpacks them with protobuf-c, copies the result and frees it.
func decodeMessage<M: CMessageBridge>(
    _: M.Type,
    from bytes: some Collection<UInt8>
) throws(MessageDecodingError) -> M {
    try withContiguousBytes(bytes) { buffer in decodeMessage(M.self, buffer) }.get()
}

private func decodeMessage<M: CMessageBridge>(
    _: M.Type,
    _ buffer: UnsafeRawBufferPointer
) -> Result<M, MessageDecodingError> {
    // No bytes are the all-defaults message in proto3: no need to ask protobuf-c (an empty
    // request, such as a whole-server health check, is common).
    if buffer.isEmpty { return .success(M()) }
    do {
        try WireValidator.validate(buffer, as: M.cDescriptor)
    } catch {
        return .failure(error)
    }
    let message = withUnsafePointer(to: 0 as UInt8) { empty in
        M.cUnpack(buffer.count, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? empty)
    }
    guard let message else {
        // Validation accepts only what protobuf-c parses, so this means the two disagree.
        return .failure(MessageDecodingError(code: .malformed, reason: "protobuf-c rejected the message"))
    }
    defer { M.cFreeUnpacked(message) }
    return .success(M(cMessage: message))
}

/// Calls `body` with the bytes in contiguous memory, copying them only when they are not.
private func withContiguousBytes<R>(
    _ bytes: some Collection<UInt8>,
    _ body: (UnsafeRawBufferPointer) -> R
) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return Array(bytes).withUnsafeBytes(body)
}

/// Builds the C graph of `message` in a scratch arena and packs it.
func encodeMessage<M: CMessageBridge>(_ message: M) -> [UInt8] {
    withUnsafeTemporaryAllocation(byteCount: Arena.firstChunkSize, alignment: Arena.alignment) { scratch in
        var arena = Arena(firstChunk: scratch)
        let cMessage = arena.cMessage(message)
        let size = M.cPackedSize(cMessage)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            guard let base = buffer.baseAddress, size > 0 else {
                count = 0
                return
            }
            count = M.cPack(cMessage, base)
            precondition(count == size, "protobuf-c packed \(count) bytes, not the \(size) it measured")
        }
    }
}

/// Packs `message` at the end of `buffer`.
func encodeMessage<M: CMessageBridge>(_ message: M, appendingTo buffer: inout [UInt8]) {
    withUnsafeTemporaryAllocation(byteCount: Arena.firstChunkSize, alignment: Arena.alignment) { scratch in
        var arena = Arena(firstChunk: scratch)
        let cMessage = arena.cMessage(message)
        let size = M.cPackedSize(cMessage)
        guard size > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: size))
        buffer.withUnsafeMutableBufferPointer { bytes in
            let count = M.cPack(cMessage, bytes.baseAddress! + start)
            precondition(count == size, "protobuf-c packed \(count) bytes, not the \(size) it measured")
        }
    }
}

// MARK: - Copying out of unpacked C messages

/// A C string as a Swift string; `nil` (which protobuf-c never leaves in a string field) as "".
@inline(__always)
func cString(_ pointer: UnsafePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    return String(cString: pointer)
}

/// The bytes of a `ProtobufCBinaryData`.
@inline(__always)
func cBytes(_ data: ProtobufCBinaryData) -> [UInt8] {
    guard data.len > 0, let base = data.data else { return [] }
    return Array(UnsafeBufferPointer(start: base, count: data.len))
}

/// A repeated scalar field, copied as a whole.
@inline(__always)
func cArray<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int) -> [T] {
    guard count > 0, let pointer else { return [] }
    return Array(UnsafeBufferPointer(start: pointer, count: count))
}

/// A repeated field whose elements need converting.
@inline(__always)
func cArray<T, E>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int, _ transform: (T) -> E) -> [E] {
    guard count > 0, let pointer else { return [] }
    return [E](unsafeUninitializedCapacity: count) { buffer, initialized in
        for index in 0..<count {
            (buffer.baseAddress! + index).initialize(to: transform(pointer[index]))
            initialized = index + 1
        }
    }
}
