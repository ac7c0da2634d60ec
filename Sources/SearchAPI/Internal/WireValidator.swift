internal import CProtobufC

/// Checks protobuf wire bytes against a protobuf-c descriptor before protobuf-c unpacks them.
///
/// protobuf-c recurses without a depth limit and copies strings without checking them, so this
/// walk rejects what it would accept unsafely or silently: nesting deeper than ``maximumDepth``,
/// strings that are not UTF-8 or that hold a NUL byte, and any framing protobuf-c would choke on
/// (overlong varints, lengths past the end, wire types that do not fit a known field, groups).
/// Unknown fields are skipped. The walk is generic: it reads only the descriptors.
enum WireValidator {
    /// Nested messages allowed below the outermost one.
    static let maximumDepth = 100

    /// Validates one message.
    ///
    /// - Parameters:
    ///   - buffer: The serialized message.
    ///   - descriptor: The protobuf-c descriptor of its type.
    /// - Throws: The first problem found, with the path of the field it is in.
    static func validate(
        _ buffer: UnsafeRawBufferPointer,
        as descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    ) throws(MessageDecodingError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let walker = Walker(base: base.assumingMemoryBound(to: UInt8.self))
        do {
            try walker.message(descriptor, from: 0, to: buffer.count, depth: 0)
        } catch {
            throw error.decodingError()
        }
    }
}

/// A problem and the fields it sits in, innermost first (the path is built while unwinding).
private struct Failure: Error {
    var code: MessageDecodingError.Code
    var reason: String
    var path: [String] = []

    func decodingError() -> MessageDecodingError {
        var fieldPath = ""
        for component in path.reversed() {
            if !fieldPath.isEmpty && !component.hasPrefix("[") { fieldPath += "." }
            fieldPath += component
        }
        return MessageDecodingError(code: code, fieldPath: fieldPath, reason: reason)
    }
}

private enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

private struct Walker {
    let base: UnsafePointer<UInt8>

    /// Validates the fields in `start..<end` as a message of type `descriptor`.
    func message(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        from start: Int,
        to end: Int,
        depth: Int
    ) throws(Failure) {
        var offset = start
        // Singular message fields with a oneof inside, seen so far: protobuf-c fails to merge a
        // second occurrence when neither sets the oneof (two empty `FilterExpression`s), so a
        // repeat of such a field is refused here whatever it holds, as decoding refuses some
        // (found by fuzzing; see `FuzzRegressionTests`). Encoders write each field once.
        var singularMessages: [UInt32] = []
        while offset < end {
            let tagOffset = offset
            let (fieldNumber, wireType) = try tag(at: &offset, end: end)
            guard let field = protobuf_c_message_descriptor_get_field(descriptor, fieldNumber) else {
                try skip(wireType, at: &offset, end: end)
                continue
            }
            do throws(Failure) {
                if field.pointee.label.rawValue != PROTOBUF_C_LABEL_REPEATED.rawValue
                    && Self.mergeMayFail(field)
                {
                    guard !singularMessages.contains(fieldNumber) else {
                        throw Failure(
                            code: .malformed, reason: "occurs twice, and protobuf-c cannot merge a message with a oneof"
                        )
                    }
                    singularMessages.append(fieldNumber)
                }
                try value(of: field, wireType: wireType, at: &offset, end: end, depth: depth)
            } catch var failure {
                let name = String(cString: field.pointee.name)
                // Each occurrence of a repeated string, bytes or message field is one element;
                // scalars may come packed, so an occurrence count would not name an element.
                if field.pointee.label.rawValue == PROTOBUF_C_LABEL_REPEATED.rawValue
                    && Self.wireType(of: field.pointee.type) == .lengthDelimited
                {
                    let index = occurrences(of: fieldNumber, from: start, to: tagOffset)
                    failure.path.append("[\(index)]")
                }
                failure.path.append(name)
                throw failure
            }
        }
    }

    /// Validates one value of a known field.
    private func value(
        of field: UnsafePointer<ProtobufCFieldDescriptor>,
        wireType: UInt8,
        at offset: inout Int,
        end: Int,
        depth: Int
    ) throws(Failure) {
        let type = field.pointee.type
        let repeated = field.pointee.label.rawValue == PROTOBUF_C_LABEL_REPEATED.rawValue
        let expected = Self.wireType(of: type)
        if wireType == expected.rawValue {
            switch expected {
            case .varint:
                _ = try varint(at: &offset, end: end)
            case .fixed32:
                try advance(&offset, by: 4, end: end)
            case .fixed64:
                try advance(&offset, by: 8, end: end)
            case .lengthDelimited:
                let length = try length(at: &offset, end: end)
                let valueEnd = offset + length
                if type.rawValue == PROTOBUF_C_TYPE_STRING.rawValue {
                    try Self.checkString(base + offset, count: length)
                } else if type.rawValue == PROTOBUF_C_TYPE_MESSAGE.rawValue {
                    guard depth < WireValidator.maximumDepth else {
                        throw Failure(
                            code: .tooDeep,
                            reason: "messages nest deeper than \(WireValidator.maximumDepth) levels")
                    }
                    let nested = field.pointee.descriptor.assumingMemoryBound(
                        to: ProtobufCMessageDescriptor.self)
                    try message(nested, from: offset, to: valueEnd, depth: depth + 1)
                }
                offset = valueEnd
            case .startGroup, .endGroup:
                preconditionFailure("no protobuf-c type uses groups")
            }
        } else if repeated && wireType == WireType.lengthDelimited.rawValue && expected != .lengthDelimited {
            // A packed run of scalars; protobuf-c accepts packed and unpacked for either option.
            let length = try length(at: &offset, end: end)
            let valueEnd = offset + length
            switch expected {
            case .varint:
                while offset < valueEnd { _ = try varint(at: &offset, end: valueEnd) }
            case .fixed32, .fixed64:
                let size = expected == .fixed32 ? 4 : 8
                guard length % size == 0 else {
                    throw Failure(
                        code: .malformed, reason: "packed length \(length) is not a multiple of \(size)")
                }
                offset = valueEnd
            default:
                preconditionFailure("only scalars are packed")
            }
        } else {
            throw Failure(
                code: .wrongWireType,
                reason: "wire type \(wireType) where \(Self.typeName(type)) needs \(expected.rawValue)")
        }
    }

    /// Whether protobuf-c may fail to merge two occurrences of `field`: it is a message field
    /// whose type has a oneof, directly or through singular message fields.
    private static func mergeMayFail(_ field: UnsafePointer<ProtobufCFieldDescriptor>, depth: Int = 0) -> Bool {
        guard field.pointee.type.rawValue == PROTOBUF_C_TYPE_MESSAGE.rawValue, depth < 8 else { return false }
        let type = field.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
        for index in 0..<Int(type.pointee.n_fields) {
            let member = type.pointee.fields + index
            if member.pointee.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 { return true }
            if member.pointee.label.rawValue != PROTOBUF_C_LABEL_REPEATED.rawValue
                && mergeMayFail(member, depth: depth + 1)
            {
                return true
            }
        }
        return false
    }

    /// How many times `fieldNumber` occurs in `start..<end`, which has been validated already.
    private func occurrences(of fieldNumber: UInt32, from start: Int, to end: Int) -> Int {
        var count = 0
        var offset = start
        while offset < end {
            guard let (number, wireType) = try? tag(at: &offset, end: end),
                (try? skip(wireType, at: &offset, end: end)) != nil
            else { break }
            if number == fieldNumber { count += 1 }
        }
        return count
    }

    // MARK: Framing

    @inline(__always)
    private func tag(at offset: inout Int, end: Int) throws(Failure) -> (UInt32, UInt8) {
        let start = offset
        let raw = try varint(at: &offset, end: end)
        guard raw <= UInt32.max else {
            throw Failure(code: .malformed, reason: "tag \(raw) does not fit 32 bits")
        }
        // protobuf-c reads tags and length prefixes of at most 5 bytes; zero-padded longer forms
        // are legal protobuf but would fail inside protobuf-c with a less helpful error.
        guard offset - start <= 5 else {
            throw Failure(code: .malformed, reason: "tag varint longer than 5 bytes")
        }
        let fieldNumber = UInt32(raw >> 3)
        let wireType = UInt8(raw & 7)
        guard fieldNumber != 0 else { throw Failure(code: .malformed, reason: "field number 0") }
        return (fieldNumber, wireType)
    }

    private func skip(_ wireType: UInt8, at offset: inout Int, end: Int) throws(Failure) {
        switch WireType(rawValue: wireType) {
        case .varint: _ = try varint(at: &offset, end: end)
        case .fixed64: try advance(&offset, by: 8, end: end)
        case .fixed32: try advance(&offset, by: 4, end: end)
        case .lengthDelimited: offset += try length(at: &offset, end: end)
        case .startGroup, .endGroup:
            throw Failure(code: .malformed, reason: "groups are not supported")
        case nil:
            throw Failure(code: .malformed, reason: "invalid wire type \(wireType)")
        }
    }

    @inline(__always)
    private func advance(_ offset: inout Int, by count: Int, end: Int) throws(Failure) {
        guard end - offset >= count else {
            throw Failure(code: .truncated, reason: "\(count)-byte value runs past the end")
        }
        offset += count
    }

    @inline(__always)
    private func varint(at offset: inout Int, end: Int) throws(Failure) -> UInt64 {
        // Most tags and lengths are one byte.
        if offset < end, base[offset] < 0x80 {
            offset += 1
            return UInt64(base[offset - 1])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end {
            let byte = base[offset]
            offset += 1
            if shift == 63 && byte > 1 {
                throw Failure(code: .malformed, reason: "varint longer than 64 bits")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw Failure(code: .truncated, reason: "varint runs past the end")
    }

    @inline(__always)
    private func length(at offset: inout Int, end: Int) throws(Failure) -> Int {
        let start = offset
        let length = try varint(at: &offset, end: end)
        guard length <= UInt64(end - offset) else {
            throw Failure(code: .truncated, reason: "length \(length) runs past the end (\(end - offset) bytes left)")
        }
        guard offset - start <= 5, length <= Int32.max else {
            throw Failure(code: .malformed, reason: "length prefix longer than 5 bytes or over 2 GiB")
        }
        return Int(length)
    }

    // MARK: Types

    // Switches compare raw values so that each match is a plain integer compare rather than
    // `RawRepresentable` equality on the imported C enum.
    static func wireType(of type: ProtobufCType) -> WireType {
        switch type.rawValue {
        case PROTOBUF_C_TYPE_STRING.rawValue, PROTOBUF_C_TYPE_BYTES.rawValue, PROTOBUF_C_TYPE_MESSAGE.rawValue:
            .lengthDelimited
        case PROTOBUF_C_TYPE_FLOAT.rawValue, PROTOBUF_C_TYPE_FIXED32.rawValue, PROTOBUF_C_TYPE_SFIXED32.rawValue:
            .fixed32
        case PROTOBUF_C_TYPE_DOUBLE.rawValue, PROTOBUF_C_TYPE_FIXED64.rawValue, PROTOBUF_C_TYPE_SFIXED64.rawValue:
            .fixed64
        default: .varint
        }
    }

    private static func typeName(_ type: ProtobufCType) -> String {
        switch type.rawValue {
        case PROTOBUF_C_TYPE_STRING.rawValue: "string"
        case PROTOBUF_C_TYPE_BYTES.rawValue: "bytes"
        case PROTOBUF_C_TYPE_MESSAGE.rawValue: "a message"
        case PROTOBUF_C_TYPE_FLOAT.rawValue: "float"
        case PROTOBUF_C_TYPE_DOUBLE.rawValue: "double"
        case PROTOBUF_C_TYPE_FIXED32.rawValue, PROTOBUF_C_TYPE_SFIXED32.rawValue: "a fixed32"
        case PROTOBUF_C_TYPE_FIXED64.rawValue, PROTOBUF_C_TYPE_SFIXED64.rawValue: "a fixed64"
        case PROTOBUF_C_TYPE_ENUM.rawValue: "an enum"
        case PROTOBUF_C_TYPE_BOOL.rawValue: "bool"
        default: "an integer"
        }
    }

    // MARK: Strings

    /// Rejects invalid UTF-8 and NUL bytes.
    private static func checkString(_ start: UnsafePointer<UInt8>, count: Int) throws(Failure) {
        switch UTF8Check.check(UnsafeBufferPointer(start: start, count: count)) {
        case .valid: return
        case .nul(let offset):
            throw Failure(code: .nulInString, reason: "NUL byte at offset \(offset)")
        case .invalid(let offset):
            throw Failure(code: .invalidUTF8, reason: "invalid UTF-8 at offset \(offset)")
        }
    }
}
