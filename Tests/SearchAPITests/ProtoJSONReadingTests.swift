import SearchAPI
import Testing

/// What the proto3 JSON reader accepts beyond the printer's own output, as protobuf's parsers do,
/// and how it refuses the rest: the field's path and what is wrong.
@Suite struct ProtoJSONReadingTests {
    private func read<Message: ProtoJSONMessage>(_ type: Message.Type, _ json: String) throws -> Message {
        try Message(jsonBytes: Array(json.utf8))
    }

    private func refusal<Message: ProtoJSONMessage>(_ type: Message.Type, _ json: String) -> ProtoJSONError? {
        do {
            _ = try Message(jsonBytes: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsProtoNamesNumbersAsStringsAndEnumNumbers() throws {
        let request = try read(
            QueryRequest.self,
            #"{"descriptor":{"labels":[{"text":"jazz","confidence":"0.5"}],"source":1,"pixel_buffer":null},"limit":"5","max_distance":0.25}"#
        )
        #expect(request.limit == 5)
        #expect(request.maxDistance == 0.25)
        #expect(request.descriptor?.source == .camera)
        #expect(request.descriptor?.labels == [Label(text: "jazz", confidence: 0.5)])
        #expect(request.descriptor?.pixelBuffer == nil)
    }

    @Test func nullIsTheDefaultAndUnknownFieldsAreSkipped() throws {
        let request = try read(
            SearchRequest.self, #"{"sessionId":null,"pageSize":null,"filters":null,"futureField":{"a":[1,2]}}"#)
        #expect(request == SearchRequest())
    }

    @Test func sixtyFourBitIntegersAsStringsOrExactNumbers() throws {
        let response = try read(CatalogUpdateResponse.self, #"{"catalogVersion":"18446744073709551615"}"#)
        #expect(response.catalogVersion == .max)
        #expect(try read(CatalogUpdateResponse.self, #"{"catalogVersion":42}"#).catalogVersion == 42)
        #expect(try read(CatalogUpdateResponse.self, #"{"applied":1e2}"#).applied == 100)
    }

    @Test func bytesInEitherAlphabetPaddedOrNot() throws {
        #expect(try read(PixelBuffer.self, #"{"data":"AAH-_w"}"#).data == [0, 1, 0xFE, 0xFF])
        #expect(try read(PixelBuffer.self, #"{"data":"AAH+/w=="}"#).data == [0, 1, 0xFE, 0xFF])
    }

    @Test func floatsAsNamedNonFiniteValues() throws {
        let label = try read(Label.self, #"{"confidence":"-Infinity"}"#)
        #expect(label.confidence == -.infinity)
        #expect(try read(Label.self, #"{"confidence":"NaN"}"#).confidence.isNaN)
    }

    @Test func refusalsNameTheFieldAndTheProblem() {
        #expect(refusal(QueryRequest.self, #"{"limit":"many"}"#)?.description == #"limit: expected UInt32, got "many""#)
        #expect(
            refusal(QueryRequest.self, #"{"descriptor":{"labels":[{"text":5}]}}"#)?.description
                == "descriptor.labels[0].text: expected a string, got a number")
        #expect(
            refusal(QueryRequest.self, #"{"limit":-1}"#)?.description
                == "limit: -1.0 is not an exact UInt32 (send large integers as strings)")
        #expect(refusal(QueryRequest.self, #"{"limit":1.5}"#)?.path == "limit")
        #expect(refusal(Label.self, #"{"confidence":1e39}"#)?.message == "1e+39 is out of a float's range")
        #expect(
            refusal(QueryRequest.self, #"{"descriptor":{"source":"SOURCE_DRONE"}}"#)?.description
                == #"descriptor.source: "SOURCE_DRONE" is not a value of the enum"#)
        #expect(refusal(PixelBuffer.self, #"{"data":"A"}"#)?.description == #"data: expected base64, got "A""#)
        #expect(
            refusal(QueryRequest.self, #"{"descriptor":{"labels":[null]}}"#)?.description
                == "descriptor.labels[0]: null in an array")
        #expect(refusal(QueryRequest.self, #"[]"#)?.description == "expected an object, got an array")
        #expect(refusal(QueryRequest.self, #"{"limit":5,}"#)?.message.hasPrefix("not JSON at byte 11") == true)
    }

    @Test func aOneofTakesOneMemberAndAFieldOneSpelling() {
        #expect(
            refusal(ResolveRequest.self, #"{"url":"demo://x","entity":{"type":"a","id":"1"}}"#)?.message
                == "sets both url and entity, members of the same oneof")
        #expect(
            refusal(QueryRequest.self, #"{"maxDistance":0.1,"max_distance":0.2}"#)?.message
                == "sets maxDistance twice (by its JSON name and its proto name)")
        // A null member does not count as set.
        #expect(refusal(ResolveRequest.self, #"{"url":null,"entity":{"type":"a","id":"1"}}"#) == nil)
    }

    @Test func aRecursiveFilterRoundTrips() throws {
        let expression = FilterExpression(
            node: .all(
                FilterList(expressions: [
                    FilterExpression(node: .not(FilterExpression(node: .filter(AttributeFilter(attribute: "city"))))),
                    FilterExpression(node: .any(FilterList())),
                ])))
        #expect(expression.jsonText == #"{"all":{"expressions":[{"not":{"filter":{"attribute":"city"}}},{"any":{}}]}}"#)
        #expect(try read(FilterExpression.self, expression.jsonText) == expression)
    }
}
