/// A message of the API that converts to and from the protobuf wire format.
///
/// Every generated message conforms. Decoding validates the bytes before protobuf-c parses them
/// (see ``MessageDecodingError``), so a decoded value never holds a string with a NUL byte or
/// invalid UTF-8, and hostile nesting is rejected before it can exhaust the stack.
public protocol ProtoMessage: Sendable, Hashable {
    /// The fully qualified proto name, e.g. `vicontinue.v1.QueryRequest`.
    static var protoName: String { get }

    /// Creates the message with every field at its proto3 default.
    init()

    /// Validates and decodes the protobuf wire format.
    ///
    /// Unknown fields are skipped and not kept.
    ///
    /// - Parameter bytes: One serialized message.
    /// - Throws: ``MessageDecodingError`` for the first problem found.
    init(serializedBytes bytes: some Collection<UInt8>) throws(MessageDecodingError)

    /// Checks serialized bytes the way ``init(serializedBytes:)`` does, without decoding them.
    ///
    /// - Parameter bytes: One serialized message.
    /// - Throws: ``MessageDecodingError`` for the first problem found.
    static func validate(serializedBytes bytes: some Collection<UInt8>) throws(MessageDecodingError)

    /// The protobuf wire format of this message.
    ///
    /// protobuf-c writes strings up to their first NUL byte, so a string that contains one is
    /// cut there; decoded messages never contain one.
    ///
    /// - Returns: The serialized bytes, fields in field-number order.
    func serializedBytes() -> [UInt8]

    /// Appends the protobuf wire format of this message to `buffer`.
    ///
    /// Lets a transport write a frame header and the message into one array without copying the
    /// message a second time.
    ///
    /// - Parameter buffer: The bytes to append to.
    func serialize(appendingTo buffer: inout [UInt8])
}

extension ProtoMessage {
    /// The deepest nesting of messages that decoding accepts, not counting the outermost message.
    ///
    /// The same limit as the reference protobuf implementations; `FilterExpression` is recursive,
    /// and protobuf-c itself has no limit.
    public static var maximumNestingDepth: Int { WireValidator.maximumDepth }
}
