import SearchAPI
import Testing

/// Hand-made wire bytes for inputs no encoder would produce.
enum Wire {
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    static func tag(_ field: UInt64, _ wireType: UInt64) -> [UInt8] {
        varint(field << 3 | wireType)
    }

    static func field(_ field: UInt64, varint value: UInt64) -> [UInt8] {
        tag(field, 0) + varint(value)
    }

    static func field(_ field: UInt64, _ payload: [UInt8]) -> [UInt8] {
        tag(field, 2) + varint(UInt64(payload.count)) + payload
    }

    static func field(_ field: UInt64, _ string: String) -> [UInt8] {
        self.field(field, Array(string.utf8))
    }

    /// A `FilterExpression` with `levels` nested `not` messages below it, built outside-in so
    /// that very deep inputs stay cheap.
    static func nestedNots(_ levels: Int) -> [UInt8] {
        var lengths = [0]
        for level in 0..<levels {
            let inner = lengths[level]
            lengths.append(1 + varint(UInt64(inner)).count + inner)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lengths[levels])
        for level in stride(from: levels - 1, through: 0, by: -1) {
            bytes += tag(4, 2) + varint(UInt64(lengths[level]))
        }
        return bytes
    }
}

@Suite struct HostileInputTests {
    // MARK: Nesting

    static func nestedValue(_ levels: Int) -> FilterExpression {
        var expression = FilterExpression()
        for _ in 0..<levels { expression = FilterExpression(node: .not(expression)) }
        return expression
    }

    @Test func nestingOfOneHundredLevelsIsAccepted() throws {
        #expect(FilterExpression.maximumNestingDepth == 100)
        let value = Self.nestedValue(100)
        let bytes = value.serializedBytes()
        #expect(bytes == Wire.nestedNots(100))
        #expect(try FilterExpression(serializedBytes: bytes) == value)
    }

    @Test func nestingOfOneHundredAndOneLevelsIsRejected() throws {
        let bytes = Self.nestedValue(101).serializedBytes()
        let error = try #require(throws: MessageDecodingError.self) { try FilterExpression(serializedBytes: bytes) }
        #expect(error.code == .tooDeep)
        #expect(error.fieldPath == Array(repeating: "not", count: 101).joined(separator: "."))
        #expect(error.message.hasSuffix(".not: messages nest deeper than 100 levels"))
    }

    @Test func nestingCountsFromTheOutermostMessageWhateverItsType() throws {
        var request = SearchRequest(where: Self.nestedValue(99))
        #expect(try SearchRequest(serializedBytes: request.serializedBytes()) == request)
        request.where = Self.nestedValue(100)
        #expect(throws: MessageDecodingError.self) { try SearchRequest(serializedBytes: request.serializedBytes()) }
    }

    @Test func nestingOfOneHundredThousandLevelsIsRejectedWithoutACrash() throws {
        let bytes = Wire.nestedNots(100_000)
        let error = try #require(throws: MessageDecodingError.self) { try FilterExpression(serializedBytes: bytes) }
        #expect(error.code == .tooDeep)
        // The walk stops at the limit, so the path is only as long as the limit.
        #expect(error.fieldPath.split(separator: ".").count == 101)
    }

    @Test func alternatingDeepListsAreRejected() throws {
        // all { expressions { all { expressions { … } } } }: two messages per level.
        var bytes: [UInt8] = []
        for _ in 0..<60 { bytes = Wire.field(2, Wire.field(1, bytes)) }
        let error = try #require(throws: MessageDecodingError.self) { try FilterExpression(serializedBytes: bytes) }
        #expect(error.code == .tooDeep)
        #expect(error.fieldPath.hasPrefix("all.expressions[0].all.expressions[0]"))
    }

    // MARK: Strings

    /// A `QueryRequest` whose third label has the given text bytes.
    static func queryRequest(thirdLabel text: [UInt8]) -> [UInt8] {
        let labels = Wire.field(1, Wire.field(1, "a")) + Wire.field(1, Wire.field(1, "b"))
        return Wire.field(1, labels + Wire.field(1, Wire.field(1, text)))
    }

    static let invalidUTF8: [(String, [UInt8], Int)] = [
        ("a byte that never starts a sequence", Array("Gitarre ".utf8) + [0xFF], 8),
        ("a lone continuation byte", [0x80], 0),
        ("an overlong NUL", [0x41, 0xC0, 0x80], 1),
        ("an overlong three-byte form", [0xE0, 0x80, 0xAF], 0),
        ("an overlong four-byte form", [0xF0, 0x82, 0x82, 0xAC], 0),
        ("a surrogate", [0xED, 0xA0, 0x80], 0),
        ("a code point above U+10FFFF", [0xF4, 0x90, 0x80, 0x80], 0),
        ("a sequence cut short", Array("0123456789€".utf8.dropLast()), 10),
        ("a bad continuation", [0xE2, 0x82, 0x41], 0),
    ]

    @Test("Invalid UTF-8 in a nested repeated string is rejected", arguments: invalidUTF8)
    func invalidUTF8IsRejected(_ name: String, _ text: [UInt8], _ offset: Int) throws {
        let bytes = Self.queryRequest(thirdLabel: text)
        let error = try #require(throws: MessageDecodingError.self) { try QueryRequest(serializedBytes: bytes) }
        #expect(error.code == .invalidUTF8)
        #expect(error.message == "descriptor.labels[2].text: invalid UTF-8 at offset \(offset)")
        #expect(error.description == "invalidUTF8: descriptor.labels[2].text: invalid UTF-8 at offset \(offset)")
    }

    @Test(
        "Valid UTF-8 is accepted",
        arguments: ["", "guitar", "Gitarre ü", "€ and 𝄞", "a long ASCII run before ü: 0123456789abcdef", "日本語"])
    func validUTF8IsAccepted(_ text: String) throws {
        let request = try QueryRequest(serializedBytes: Self.queryRequest(thirdLabel: Array(text.utf8)))
        #expect(request.descriptor?.labels.map(\.text) == ["a", "b", text])
    }

    @Test func aNulByteInAStringIsRejected() throws {
        let error = try #require(throws: MessageDecodingError.self) {
            try QueryRequest(serializedBytes: Self.queryRequest(thirdLabel: [0x61, 0x62, 0x00, 0x63]))
        }
        #expect(error.code == .nulInString)
        #expect(error.message == "descriptor.labels[2].text: NUL byte at offset 2")
    }

    @Test func aNulByteAfterALongASCIIRunIsFound() throws {
        let text = Array("0123456789abcdef".utf8) + [0] + Array("xyz".utf8)
        let error = try #require(throws: MessageDecodingError.self) {
            try SearchRequest(serializedBytes: Wire.field(4, "album") + Wire.field(4, text))
        }
        #expect(error.code == .nulInString)
        #expect(error.message == "entity_types[1]: NUL byte at offset 16")
    }

    @Test func aNulByteInAOneofStringIsRejected() throws {
        let error = try #require(throws: MessageDecodingError.self) {
            try ResolveRequest(serializedBytes: Wire.field(1, [0x61, 0x00]))
        }
        #expect(error.message == "url: NUL byte at offset 1")
    }

    @Test func nulBytesInBytesFieldsAreData() throws {
        let buffer = try PixelBuffer(serializedBytes: Wire.field(5, [0, 0, 0]))
        #expect(buffer.data == [0, 0, 0])
    }

    // MARK: Framing

    static let malformed: [(String, [UInt8], MessageDecodingError.Code, String)] = [
        ("a truncated tag", [0x80], .truncated, "varint runs past the end"),
        ("a truncated varint value", [0x10, 0x80], .truncated, "limit: varint runs past the end"),
        (
            "a length past the end", [0x0A, 0x05, 0x01], .truncated,
            "descriptor: length 5 runs past the end (1 bytes left)"
        ),
        ("a truncated float", [0x1D, 0x00, 0x00], .truncated, "max_distance: 4-byte value runs past the end"),
        (
            "a nested truncated length", Wire.field(1, [0x0A, 0x03, 0x0A]), .truncated,
            "descriptor.labels[0]: length 3 runs past the end (1 bytes left)"
        ),
        (
            "a huge length", [0x0A] + Wire.varint(.max), .truncated,
            "descriptor: length 18446744073709551615 runs past the end (0 bytes left)"
        ),
        (
            "a varint over 64 bits", [0x10] + [UInt8](repeating: 0xFF, count: 10) + [0x01], .malformed,
            "limit: varint longer than 64 bits"
        ),
        ("a tag over 32 bits", Wire.varint(1 << 35), .malformed, "tag 34359738368 does not fit 32 bits"),
        ("field number 0", [0x00, 0x00], .malformed, "field number 0"),
        (
            "a zero-padded 6-byte tag", [0x90, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01], .malformed,
            "tag varint longer than 5 bytes"
        ),
        (
            "a zero-padded 6-byte length", [0x0A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], .malformed,
            "descriptor: length prefix longer than 5 bytes or over 2 GiB"
        ),
        ("an integer sent as bytes", [0x12, 0x00], .wrongWireType, "limit: wire type 2 where an integer needs 0"),
        ("a float sent as a varint", [0x18, 0x01], .wrongWireType, "max_distance: wire type 0 where float needs 5"),
        (
            "a message sent as a varint", [0x08, 0x01], .wrongWireType,
            "descriptor: wire type 0 where a message needs 2"
        ),
        ("an unknown group", Wire.tag(15, 3) + Wire.tag(15, 4), .malformed, "groups are not supported"),
        ("wire type 6", Wire.tag(15, 6), .malformed, "invalid wire type 6"),
        ("wire type 7", Wire.tag(2, 7), .wrongWireType, "limit: wire type 7 where an integer needs 0"),
    ]

    @Test("Malformed framing is rejected", arguments: malformed)
    func malformedFramingIsRejected(
        _ name: String, _ bytes: [UInt8], _ code: MessageDecodingError.Code, _ message: String
    ) throws {
        let error = try #require(throws: MessageDecodingError.self) { try QueryRequest(serializedBytes: bytes) }
        #expect(error.code == code)
        #expect(error.message == message)
        #expect(throws: error) { try QueryRequest.validate(serializedBytes: bytes) }
    }

    @Test func aStringSentAsAVarintIsRejected() throws {
        let error = try #require(throws: MessageDecodingError.self) { try Label(serializedBytes: [0x08, 0x01]) }
        #expect(error.description == "wrongWireType: text: wire type 0 where string needs 2")
    }

    @Test func packedFloatsMustHoldWholeFloats() throws {
        let error = try #require(throws: MessageDecodingError.self) {
            try FeaturePrint(serializedBytes: Wire.field(2, [0, 0, 0x80, 0x3F, 0]))
        }
        #expect(error.code == .malformed)
        #expect(error.message == "values: packed length 5 is not a multiple of 4")
    }

    @Test func unpackedRepeatedScalarsAreAccepted() throws {
        // values: 1, values: 2 as two fixed32 fields instead of one packed run.
        let bytes: [UInt8] = [0x15, 0x00, 0x00, 0x80, 0x3F, 0x15, 0x00, 0x00, 0x00, 0x40]
        #expect(try FeaturePrint(serializedBytes: bytes).values == [1, 2])
    }

    @Test func onlyRepeatedScalarsMayComePacked() throws {
        // Descriptor.source is a singular enum, so a length-delimited one is a mismatch.
        let error = try #require(throws: MessageDecodingError.self) {
            try Descriptor(serializedBytes: Wire.field(4, [0x80]))
        }
        #expect(error.code == .wrongWireType)
        #expect(error.message == "source: wire type 2 where an enum needs 0")
    }

    // MARK: Unknown fields

    @Test func unknownFieldsAreSkipped() throws {
        let known = QueryRequest(
            descriptor: Descriptor(labels: [Label(text: "guitar")], locale: "en"), limit: 3)
        var bytes: [UInt8] = Wire.field(15, varint: .max)
        bytes += Wire.field(16, [0xFF, 0x00, 0xC0])  // not UTF-8, but unknown, so not a string
        bytes += Wire.tag(17, 5) + [1, 2, 3, 4]
        bytes += Wire.tag(18, 1) + [1, 2, 3, 4, 5, 6, 7, 8]
        bytes += known.serializedBytes()
        // And one inside a nested message.
        bytes += Wire.field(1, Wire.field(99, "ignored"))
        #expect(try QueryRequest(serializedBytes: bytes) == known)
    }

    @Test func aTruncatedUnknownFieldIsRejected() throws {
        let error = try #require(throws: MessageDecodingError.self) {
            try QueryRequest(serializedBytes: Wire.tag(18, 1) + [1, 2, 3])
        }
        #expect(error.code == .truncated)
        #expect(error.fieldPath == "")
    }

    @Test func theLastOneofMemberWins() throws {
        let bytes = Wire.field(1, "app://x") + Wire.field(2, Wire.field(1, "album"))
        #expect(try ResolveRequest(serializedBytes: bytes).target == .entity(EntityRef(type: "album")))
    }
}

extension HostileInputTests {
    @Test func theFirstOfANulAndAnInvalidSequenceIsReported() throws {
        let nulFirst = try #require(throws: MessageDecodingError.self) {
            try Label(serializedBytes: Wire.field(1, [0x61, 0x00, 0xFF]))
        }
        #expect(nulFirst.message == "text: NUL byte at offset 1")
        let invalidFirst = try #require(throws: MessageDecodingError.self) {
            try Label(serializedBytes: Wire.field(1, [0x61, 0xFF, 0x00]))
        }
        #expect(invalidFirst.message == "text: invalid UTF-8 at offset 1")
    }
}
