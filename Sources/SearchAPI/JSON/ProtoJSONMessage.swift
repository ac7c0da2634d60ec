public import JSONReading

/// A message of the API that converts to and from the proto3 JSON mapping: what Connect and
/// gRPC-Web's JSON clients, `curl` and a browser send.
///
/// Every generated message conforms (`scripts/generate-proto` writes the conformances from the
/// proto). The mapping is protobuf's own: fields by their lowerCamelCase JSON name (the proto
/// name is accepted too), fields at their default left out, 64-bit integers as strings, enums by
/// name, bytes as base64, and NaN and the infinities as strings.
public protocol ProtoJSONMessage: ProtoMessage {
    /// Writes this message as one JSON object: fields in field-number order, defaults left out.
    func writeJSON(to writer: inout ProtoJSONWriter)

    /// Reads a message from a parsed JSON value.
    ///
    /// Unknown fields are skipped, as Connect servers do, so an older server accepts a newer
    /// client's request. `null` stands for a field's default.
    ///
    /// - Parameters:
    ///   - json: The message's JSON object.
    ///   - path: Where the object sits in the request (`descriptor.labels[0]`), for errors; empty
    ///     for the outermost message.
    /// - Throws: ``ProtoJSONError`` naming the first field that does not fit the proto.
    init(json: JSONDocument, path: String) throws(ProtoJSONError)
}

extension ProtoJSONMessage {
    /// The proto3 JSON of this message, compact, in UTF-8.
    public func jsonBytes() -> [UInt8] {
        var writer = ProtoJSONWriter()
        writeJSON(to: &writer)
        return writer.bytes
    }

    /// The proto3 JSON of this message, compact.
    public var jsonText: String { String(decoding: jsonBytes(), as: UTF8.self) }

    /// Parses and reads a message from proto3 JSON.
    ///
    /// - Throws: ``ProtoJSONError``: the text is not JSON (with the byte offset), or a field does
    ///   not fit the proto (with its path).
    public init(jsonBytes bytes: some Collection<UInt8>) throws(ProtoJSONError) {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(bytes)
        } catch {
            throw ProtoJSONError(path: "", message: "not JSON at byte \(error.offset): \(error.message)")
        }
        try self.init(json: document, path: "")
    }
}

/// A proto enum written by its value names in JSON.
public protocol ProtoJSONEnum: RawRepresentable<Int32> {
    /// The proto name of the value (`SOURCE_CAMERA`); `nil` for a number this version does not know.
    var jsonName: String? { get }

    /// The value with proto name `jsonName`, if the enum has it.
    init?(jsonName: String)

    /// The value with wire number `rawValue`; unknown numbers are kept.
    init(rawValue: Int32)
}
