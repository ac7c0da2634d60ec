import SearchAPI
import Testing

/// Encodings checked against the reference implementation.
///
/// Every byte array below was produced by protoc's own encoder from the text format quoted next
/// to it, e.g. `echo 'status: SERVING' | protoc-c --proto_path=proto
/// --encode=grpc.health.v1.HealthCheckResponse grpc/health/v1/health.proto | od -An -tx1`.
@Suite struct GoldenBytesTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        var message: any ProtoMessage
        var bytes: [UInt8]
        var testDescription: String { type(of: message).protoName }
    }

    static let goldens: [Golden] = [
        // descriptor { labels { text: "guitar" confidence: 0.5 } labels { text: "Gitarre ü" }
        // source: SOURCE_CAMERA locale: "de-DE" } limit: 5 max_distance: 0.25
        Golden(
            message: QueryRequest(
                descriptor: Descriptor(
                    labels: [Label(text: "guitar", confidence: 0.5), Label(text: "Gitarre ü")],
                    source: .camera,
                    locale: "de-DE"),
                limit: 5,
                maxDistance: 0.25),
            bytes: [
                0x0a, 0x26, 0x0a, 0x0d, 0x0a, 0x06, 0x67, 0x75, 0x69, 0x74, 0x61, 0x72, 0x15, 0x00, 0x00, 0x00,
                0x3f, 0x0a, 0x0c, 0x0a, 0x0a, 0x47, 0x69, 0x74, 0x61, 0x72, 0x72, 0x65, 0x20, 0xc3, 0xbc, 0x20,
                0x01, 0x2a, 0x05, 0x64, 0x65, 0x2d, 0x44, 0x45, 0x10, 0x05, 0x1d, 0x00, 0x00, 0x80, 0x3e,
            ]),
        // session_id: "s1" query: "" disabled_labels: "red" entity_types: "album"
        // entity_types: "artist" filters { attribute: "year" range { min: 1990 max: 1999.5 } }
        // where { not { filter { attribute: "city" any_of { values: "Köln" values: "" } } } }
        // sort { key: SORT_KEY_ATTRIBUTE attribute: "year" descending: true } page_size: 20
        // page_token: "t"
        Golden(
            message: SearchRequest(
                sessionID: "s1",
                query: "",
                disabledLabels: ["red"],
                entityTypes: ["album", "artist"],
                filters: [AttributeFilter(attribute: "year", condition: .range(NumberRange(min: 1990, max: 1999.5)))],
                where: FilterExpression(
                    node: .not(
                        FilterExpression(
                            node: .filter(
                                AttributeFilter(
                                    attribute: "city", condition: .anyOf(ValueSet(values: ["Köln", ""]))))))),
                sort: Sort(key: .attribute, attribute: "year", descending: true),
                pageSize: 20,
                pageToken: "t"),
            bytes: [
                0x0a, 0x02, 0x73, 0x31, 0x12, 0x00, 0x1a, 0x03, 0x72, 0x65, 0x64, 0x22, 0x05, 0x61, 0x6c, 0x62,
                0x75, 0x6d, 0x22, 0x06, 0x61, 0x72, 0x74, 0x69, 0x73, 0x74, 0x32, 0x1a, 0x0a, 0x04, 0x79, 0x65,
                0x61, 0x72, 0x1a, 0x12, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x9f, 0x40, 0x11, 0x00, 0x00,
                0x00, 0x00, 0x00, 0x3e, 0x9f, 0x40, 0x3a, 0x15, 0x22, 0x13, 0x0a, 0x11, 0x0a, 0x04, 0x63, 0x69,
                0x74, 0x79, 0x12, 0x09, 0x0a, 0x05, 0x4b, 0xc3, 0xb6, 0x6c, 0x6e, 0x0a, 0x00, 0x42, 0x0a, 0x08,
                0x01, 0x12, 0x04, 0x79, 0x65, 0x61, 0x72, 0x18, 0x01, 0x48, 0x14, 0x52, 0x01, 0x74,
            ]),
        // session_id: "s1" page_size: 20 max_facet_values: 5
        Golden(
            message: SearchRequest(sessionID: "s1", pageSize: 20, maxFacetValues: 5),
            bytes: [0x0a, 0x02, 0x73, 0x31, 0x48, 0x14, 0x58, 0x05]),
        // session_id: "s1" max_facets: 5 include_facets: "spice" include_facets: "año"
        Golden(
            message: SearchRequest(sessionID: "s1", maxFacets: 5, includeFacets: ["spice", "año"]),
            bytes: [
                0x0a, 0x02, 0x73, 0x31, 0x60, 0x05, 0x6a, 0x05, 0x73, 0x70, 0x69, 0x63, 0x65, 0x6a, 0x04, 0x61,
                0xc3, 0xb1, 0x6f,
            ]),
        // descriptor { labels { text: "salt" } } max_facets: 3
        Golden(
            message: CaptureRequest(descriptor: Descriptor(labels: [Label(text: "salt")]), maxFacets: 3),
            bytes: [0x0a, 0x08, 0x0a, 0x06, 0x0a, 0x04, 0x73, 0x61, 0x6c, 0x74, 0x28, 0x03]),
        // session_id: "s" total_hits: 7 more_facets: "allergen" more_facets: "year"
        Golden(
            message: SearchState(sessionID: "s", totalHits: 7, moreFacets: ["allergen", "year"]),
            bytes: [
                0x0a, 0x01, 0x73, 0x40, 0x07, 0x7a, 0x08, 0x61, 0x6c, 0x6c, 0x65, 0x72, 0x67, 0x65, 0x6e, 0x7a,
                0x04, 0x79, 0x65, 0x61, 0x72,
            ]),
        // name: "brand" kind: FACET_KIND_STRING values { value: "x" count: 2 } more_values: 300
        Golden(
            message: Facet(name: "brand", kind: .string, values: [FacetValue(value: "x", count: 2)], moreValues: 300),
            bytes: [
                0x0a, 0x05, 0x62, 0x72, 0x61, 0x6e, 0x64, 0x10, 0x03, 0x1a, 0x05, 0x0a, 0x01, 0x78, 0x10, 0x02,
                0x20, 0xac, 0x02,
            ]),
        // name: "id" kind: PARAM_KIND_INT int_value: -5 from_query: true
        Golden(
            message: Param(name: "id", kind: .int, value: .intValue(-5), fromQuery: true),
            bytes: [
                0x0a, 0x02, 0x69, 0x64, 0x10, 0x01, 0x18, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0x01, 0x28, 0x01,
            ]),
        // url: "app://recipe/42"
        Golden(
            message: ResolveRequest(target: .url("app://recipe/42")),
            bytes: [
                0x0a, 0x0f, 0x61, 0x70, 0x70, 0x3a, 0x2f, 0x2f, 0x72, 0x65, 0x63, 0x69, 0x70, 0x65, 0x2f, 0x34,
                0x32,
            ]),
        // width: 2 height: 1 bytes_per_row: 8 format: PIXEL_FORMAT_BGRA8
        // data: "\000\001\000\377\000\000\000\000"
        Golden(
            message: PixelBuffer(
                width: 2, height: 1, bytesPerRow: 8, format: .bgra8, data: [0, 1, 0, 255, 0, 0, 0, 0]),
            bytes: [
                0x08, 0x02, 0x10, 0x01, 0x18, 0x08, 0x20, 0x01, 0x2a, 0x08, 0x00, 0x01, 0x00, 0xff, 0x00, 0x00,
                0x00, 0x00,
            ]),
        // model: "m1" values: 1 values: -2.5 values: 0 (packed)
        Golden(
            message: FeaturePrint(model: "m1", values: [1, -2.5, 0]),
            bytes: [
                0x0a, 0x02, 0x6d, 0x31, 0x12, 0x0c, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00,
                0x00, 0x00,
            ]),
        // source: 7 locale: "en" (an enum value this API does not know)
        Golden(
            message: Descriptor(source: .unrecognized(7), locale: "en"),
            bytes: [0x20, 0x07, 0x2a, 0x02, 0x65, 0x6e]),
        // total_hits: 18446744073709551615 expires_at_unix_ms: -1
        Golden(
            message: SearchState(totalHits: .max, expiresAtUnixMs: -1),
            bytes: [
                0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x50, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ]),
        // status: SERVING
        Golden(message: Health.CheckResponse(status: .serving), bytes: [0x08, 0x01]),
        // response_size: 3 payload { body: "\000\000" } response_compressed { value: true }
        // response_status { code: -1 message: "boom" } sleep_ms: 7
        Golden(
            message: Interop.SimpleRequest(
                responseSize: 3,
                payload: Interop.Payload(body: [0, 0]),
                responseCompressed: Interop.BoolValue(value: true),
                responseStatus: Interop.EchoStatus(code: -1, message: "boom"),
                sleepMs: 7),
            bytes: [
                0x08, 0x03, 0x12, 0x04, 0x0a, 0x02, 0x00, 0x00, 0x1a, 0x02, 0x08, 0x01, 0x22, 0x11, 0x08, 0xff,
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x12, 0x04, 0x62, 0x6f, 0x6f, 0x6d, 0x30,
                0x07,
            ]),
        // (empty)
        Golden(message: Interop.Empty(), bytes: []),
        // catalog_version: 7 entity_count: 300 digest: "00ff" caught_up: true
        Golden(
            message: CatalogInfoResponse(catalogVersion: 7, entityCount: 300, digest: "00ff", caughtUp: true),
            bytes: [0x08, 0x07, 0x10, 0xac, 0x02, 0x1a, 0x04, 0x30, 0x30, 0x66, 0x66, 0x20, 0x01]),
    ]

    @Test("Encoding matches protoc", arguments: goldens)
    func encodingMatchesProtoc(_ golden: Golden) {
        #expect(golden.message.serializedBytes() == golden.bytes)
    }

    @Test("Decoding protoc's bytes gives the message back", arguments: goldens)
    func decodingProtocBytes(_ golden: Golden) throws {
        #expect(try Self.decodes(golden.bytes, to: golden.message))
    }

    private static func decodes<M: ProtoMessage>(_ bytes: [UInt8], to message: M) throws -> Bool {
        try M(serializedBytes: bytes) == message
    }
}
