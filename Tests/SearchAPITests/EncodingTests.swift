import SearchAPI
import Testing

@Suite struct EncodingTests {
    @Test func aStringWithANulIsCutThereBecauseProtobufCWritesCStrings() throws {
        let label = Label(text: "gui\u{0}tar")
        #expect(label.serializedBytes() == [0x0A, 0x03, 0x67, 0x75, 0x69])
        #expect(try Label(serializedBytes: label.serializedBytes()).text == "gui")
    }

    @Test func messagesLargerThanTheStackChunkEncode() throws {
        // Many small strings and one large payload: the arena chains heap chunks.
        let response = QueryResponse(
            results: (0..<2000).map { QueryResult(title: "title \($0)", matchedTerms: ["a", "b", "\($0)"]) })
        let decoded = try QueryResponse(serializedBytes: response.serializedBytes())
        #expect(decoded == response)
        let payload = Interop.Payload(body: (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0) })
        #expect(try Interop.Payload(serializedBytes: payload.serializedBytes()) == payload)
    }

    @Test func encodingAndDecodingRunConcurrently() async throws {
        let state = SearchState(sessionID: "s", results: Array(repeating: RoundTripTests.queryResult, count: 10))
        let bytes = state.serializedBytes()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        guard try SearchState(serializedBytes: bytes) == state, state.serializedBytes() == bytes else {
                            return false
                        }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    @Test func serializingAppendsAfterWhatIsThere() {
        let request = GoldenBytesTests.goldens[0].message
        var frame: [UInt8] = [0, 0, 0, 0, 47]
        request.serialize(appendingTo: &frame)
        #expect(frame == [0, 0, 0, 0, 47] + request.serializedBytes())
        Interop.Empty().serialize(appendingTo: &frame)
        #expect(frame.count == 5 + 47)
    }
}
