import SearchAPI
import Testing

/// Inputs found by the request-message fuzzer in `Fuzz/` (`scripts/fuzz`).
@Suite struct SearchAPIFuzzRegressionTests {
    /// Found by request-message (minimised): a `SearchRequest` whose `where` (field 7) occurs
    /// twice, both empty. The validator accepted it and protobuf-c then refused to merge the two
    /// `FilterExpression`s, so `validate` and `init(serializedBytes:)` disagreed.
    @Test func aSingularMessageFieldOccurringTwiceIsRefusedByValidationAndDecodingAlike() throws {
        let bytes: [UInt8] = [0x3a, 0x00, 0x3a, 0x00]
        let validation = #expect(throws: MessageDecodingError.self) {
            try SearchRequest.validate(serializedBytes: bytes)
        }
        let decoding = #expect(throws: MessageDecodingError.self) { try SearchRequest(serializedBytes: bytes) }
        #expect(validation?.code == .malformed)
        #expect(validation?.fieldPath == "where")
        #expect(validation?.message == "where: occurs twice, and protobuf-c cannot merge a message with a oneof")
        #expect(decoding == validation)
    }

    /// The same rule deeper down: `not` twice inside `where`, `range` twice inside a filter.
    @Test(
        "a repeated occurrence of a message field with a oneof is refused at any depth",
        arguments: [
            ([0x3a, 0x04, 0x22, 0x00, 0x22, 0x00], "where.not"),
            ([0x3a, 0x06, 0x0a, 0x04, 0x1a, 0x00, 0x1a, 0x00], "where.filter.range"),
        ] as [([UInt8], String)])
    func repeatedOccurrenceIsRefused(bytes: [UInt8], path: String) throws {
        let error = #expect(throws: MessageDecodingError.self) { try SearchRequest(serializedBytes: bytes) }
        #expect(error?.fieldPath == path)
        #expect(error?.code == .malformed)
    }

    /// Messages without a oneof still merge as protobuf says, and repeated fields still repeat.
    @Test func otherRepeatedOccurrencesStillDecode() throws {
        // `descriptor` twice: the labels of both occurrences are kept.
        let merged: [UInt8] = [0x0a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x61, 0x0a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x62]
        let query = try QueryRequest(serializedBytes: merged)
        #expect(query.descriptor?.labels.map(\.text) == ["a", "b"])
        // `filters` (repeated, field 6) twice and `where` once.
        let request = try SearchRequest(serializedBytes: [0x32, 0x00, 0x32, 0x00, 0x3a, 0x02, 0x22, 0x00])
        #expect(request.filters.count == 2)
    }
}
