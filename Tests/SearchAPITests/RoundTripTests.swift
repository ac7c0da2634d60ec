import SearchAPI
import Testing

/// Every message type with every field set survives encode → decode → encode unchanged.
@Suite struct RoundTripTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var message: any ProtoMessage
        var note: String
        var testDescription: String { "\(type(of: message).protoName) \(note)".trimmingSuffixSpace() }

        init(_ message: any ProtoMessage, _ note: String = "") {
            self.message = message
            self.note = note
        }
    }

    // MARK: Search

    static let entityRef = EntityRef(type: "album", id: "42")
    static let label = Label(text: "日本語 🎸", confidence: 0.25)
    static let pixelBuffer = PixelBuffer(
        width: 3, height: 2, bytesPerRow: 12, format: .unrecognized(99), data: [0, 0, 255, 0, 1, 0, 0, 0])
    static let featurePrint = FeaturePrint(model: "clip-v2", values: [0.5, -1.25, 3e38, .leastNonzeroMagnitude, 0])
    static let descriptor = Descriptor(
        labels: [Label(text: "guitar", confidence: 0.9), Label(text: "", confidence: 0), label],
        pixelBuffer: pixelBuffer,
        featurePrint: featurePrint,
        source: .screenshot,
        locale: "de-DE")
    static let queryResult = QueryResult(
        entity: entityRef,
        title: "Nevermind",
        subtitle: "Nirvana · 1991",
        thumbnailURL: "https://img.example/t/42.jpg",
        imageURL: "https://img.example/42.jpg",
        deepLink: "app://album/42",
        score: -1.5,
        match: .textAndImage,
        distance: 0.125,
        matchedTerms: ["red", "", "guitar"],
        relatedTo: EntityRef(type: "artist", id: "7"),
        category: "Music/Rock")
    static let valueSet = ValueSet(values: ["1990", "", "Köln"])
    static let numberRange = NumberRange(min: -1e300, max: 0)
    static let attributeFilter = AttributeFilter(attribute: "year", condition: .anyOf(valueSet))
    static let filterExpression = FilterExpression(
        node: .all(
            FilterList(expressions: [
                FilterExpression(node: .any(FilterList(expressions: [FilterExpression()]))),
                FilterExpression(node: .not(FilterExpression(node: .filter(attributeFilter)))),
            ])))
    static let sort = Sort(key: .title, attribute: "title", descending: true)
    static let facetValue = FacetValue(value: "1990..1999", count: .max, selected: true)
    static let appliedFilter = AppliedFilter(
        filter: AttributeFilter(attribute: "year", condition: .range(numberRange)), label: "year 1990–1999")
    static let relaxation = Relaxation(
        kind: .droppedLabel, subject: "red", explanation: "No results for “red guitar”; showing “guitar”.")
    static let intParam = Param(name: "id", kind: .int, value: .intValue(.min), fromQuery: true)
    static let destination = Destination(
        screen: "recipe.detail",
        params: [intParam, Param(name: "slug", kind: .slug, value: .stringValue("a-b"), fromQuery: true)],
        entity: entityRef,
        canonicalURL: "https://example.com/recipe/42",
        fallback: true,
        fallbackReason: "no route for \"/x\"",
        route: "/recipe/{id:int}")
    static let localizedText = LocalizedText(locale: "de", title: "Überschrift", subtitle: "")
    static let attribute = Attribute(name: "year", value: .numberValue(-3.5))
    static let entity = Entity(
        type: "album",
        id: "42",
        title: "Nevermind",
        subtitle: "Nirvana",
        category: "Music/Rock",
        tags: ["grunge", "", "🎸"],
        attributes: [attribute, Attribute(name: "city", value: .stringValue(""))],
        imageURL: "https://img.example/42.jpg",
        thumbnailURL: "https://img.example/t/42.jpg",
        prints: [featurePrint, FeaturePrint(model: "empty")],
        related: [EntityRef(type: "artist", id: "7"), EntityRef()],
        localized: [localizedText],
        link: "https://catalog.example/album/42")

    static let search: [Sample] = [
        Sample(descriptor),
        Sample(label),
        Sample(pixelBuffer),
        Sample(featurePrint),
        Sample(QueryRequest(descriptor: descriptor, limit: 20, maxDistance: 0), "with max distance 0"),
        Sample(QueryResponse(results: [queryResult, QueryResult()])),
        Sample(entityRef),
        Sample(queryResult),
        Sample(CaptureRequest(descriptor: descriptor, pageSize: 100)),
        Sample(CaptureRequest(descriptor: descriptor, maxFacetValues: 3, maxDistance: 0), "max distance 0 is set"),
        Sample(
            SearchRequest(
                sessionID: "s-1",
                query: "red guitar",
                disabledLabels: ["red", ""],
                entityTypes: ["album", "artist"],
                categories: ["Music/Rock"],
                filters: [attributeFilter, appliedFilter.filter!],
                where: filterExpression,
                sort: sort,
                pageSize: 7,
                pageToken: "token",
                maxFacetValues: 25)),
        Sample(SearchRequest(query: ""), "with an empty query"),
        Sample(attributeFilter, "any of"),
        Sample(AttributeFilter(attribute: "year", condition: .range(NumberRange())), "range"),
        Sample(valueSet),
        Sample(numberRange),
        Sample(NumberRange(max: 1999.5), "without min"),
        Sample(filterExpression, "all, any, not, filter"),
        Sample(FilterList(expressions: [filterExpression, FilterExpression()])),
        Sample(sort),
        Sample(
            SearchState(
                sessionID: "s-1",
                queryText: "guitar",
                chips: [Chip(text: "red", selected: true, confidence: 0.5), Chip()],
                facets: [Facet(name: "year", kind: .number, values: [facetValue], moreValues: 4)],
                appliedFilters: [appliedFilter],
                results: [queryResult],
                nextPageToken: "next",
                totalHits: 12_345_678_901,
                relaxations: [relaxation],
                expiresAtUnixMs: -1,
                sort: sort,
                browseCategories: [facetValue, FacetValue(value: "Music")],
                source: .camera,
                locale: "en-US")),
        Sample(Chip(text: "guitar", selected: true, confidence: 1)),
        Sample(Facet(name: "type", kind: .unrecognized(-3), values: [facetValue, FacetValue()])),
        Sample(facetValue),
        Sample(appliedFilter),
        Sample(relaxation),
        Sample(ResolveRequest(target: .url("app://recipe/42?x=ü")), "url"),
        Sample(ResolveRequest(target: .entity(EntityRef())), "empty entity"),
        Sample(destination),
        Sample(intParam, "int"),
        Sample(Param(name: "q", kind: .string, value: .stringValue(""), fromQuery: true), "empty string"),
        Sample(LinkRequest(target: .destination(destination)), "destination"),
        Sample(LinkRequest(target: .entity(entityRef)), "entity"),
        Sample(LinkResponse(url: "https://a/x", appURL: "app://x", universalURL: "https://a/x")),
        Sample(entity),
        Sample(attribute, "number"),
        Sample(Attribute(name: "city", value: .stringValue("Zürich")), "string"),
        Sample(localizedText),
        Sample(UpsertEntitiesRequest(entities: [entity, Entity()])),
        Sample(DeleteEntitiesRequest(entities: [entityRef, EntityRef(type: "", id: "")])),
        Sample(
            CatalogUpdateResponse(
                applied: 3, catalogVersion: .max,
                errors: [EntityError(index: 1, entity: entityRef, message: "title is empty"), EntityError()])),
        Sample(EntityError(index: .max, entity: entityRef, message: "ü")),
        Sample(CatalogInfoRequest()),
        Sample(ExplainRouteRequest(url: "music://album/ü?x=1", limit: .max)),
        Sample(
            RouteExplanation(
                outcome: "fallback", detail: "no route", path: "/album/x",
                candidates: [
                    RouteCandidate(route: "album", pattern: "/album/{id:slug}", matchedSegments: 1, reason: "ü"),
                    RouteCandidate(),
                ])),
        Sample(RouteCandidate(route: "r", pattern: "/{*rest}", matchedSegments: .max, reason: "matched")),
        Sample(CheckRoutesRequest()),
        Sample(
            RouteCheck(
                routeCount: 7, entityCount: .max,
                types: [TypeRoute(type: "album", route: "album", pattern: "/album/{id}"), TypeRoute(type: "venue")])),
        Sample(TypeRoute(type: "artist", route: "", pattern: "")),
        Sample(
            CatalogInfoResponse(catalogVersion: .max, entityCount: 100_000, digest: "00ff13a2c4e5b6d7", caughtUp: true)),
    ]

    // MARK: Interop and health

    static let payload = Interop.Payload(body: [0, 1, 0, 0, 255, 0])
    static let echoStatus = Interop.EchoStatus(code: -13, message: "état")

    static let interopAndHealth: [Sample] = [
        Sample(Interop.Empty()),
        Sample(Interop.BoolValue(value: true)),
        Sample(payload),
        Sample(echoStatus),
        Sample(
            Interop.SimpleRequest(
                responseSize: 314_159,
                payload: payload,
                responseCompressed: Interop.BoolValue(value: true),
                responseStatus: echoStatus,
                expectCompressed: Interop.BoolValue(),
                sleepMs: -1)),
        Sample(Interop.SimpleResponse(payload: Interop.Payload(body: [UInt8](repeating: 0, count: 70_000)))),
        Sample(Interop.ResponseParameters(size: 1, intervalUs: .min, compressed: Interop.BoolValue(value: true))),
        Sample(
            Interop.StreamingOutputCallRequest(
                responseParameters: [Interop.ResponseParameters(size: 9), Interop.ResponseParameters()],
                payload: payload,
                responseStatus: echoStatus)),
        Sample(Interop.StreamingOutputCallResponse(payload: payload)),
        Sample(Interop.StreamingInputCallRequest(payload: payload)),
        Sample(Interop.StreamingInputCallResponse(aggregatedPayloadSize: 74922)),
        Sample(Health.CheckRequest(service: "vicontinue.v1.VisualSearch")),
        Sample(Health.CheckResponse(status: .notServing), "not serving"),
        Sample(Health.CheckResponse(status: .unrecognized(-2)), "negative unknown status"),
    ]

    // MARK: Reflection (v1 and v1alpha: the same fields under two packages)

    static let reflection: [Sample] = [
        Sample(Reflection.ServerReflectionRequest(host: "h:1", messageRequest: .fileByFilename("search.proto"))),
        Sample(
            Reflection.ServerReflectionRequest(
                messageRequest: .fileContainingExtension(
                    Reflection.ExtensionRequest(containingType: "vicontinue.v1.Label", extensionNumber: -7)))),
        Sample(Reflection.ExtensionRequest(containingType: "a.B", extensionNumber: 2)),
        Sample(
            Reflection.ServerReflectionResponse(
                validHost: "h", originalRequest: Reflection.ServerReflectionRequest(messageRequest: .listServices("")),
                messageResponse: .fileDescriptorResponse(
                    Reflection.FileDescriptorResponse(fileDescriptorProto: [[0x0A, 0x01, 0x61], [], [0xFF]])))),
        Sample(Reflection.FileDescriptorResponse(fileDescriptorProto: [[1, 2, 3]])),
        Sample(Reflection.ExtensionNumberResponse(baseTypeName: "a.B", extensionNumber: [100, -1, 536_870_911])),
        Sample(
            Reflection.ListServiceResponse(service: [Reflection.ServiceResponse(name: "vicontinue.v1.VisualSearch")])),
        Sample(Reflection.ServiceResponse(name: "grpc.health.v1.Health")),
        Sample(Reflection.ErrorResponse(errorCode: 5, errorMessage: "no symbol x")),
        Sample(ReflectionV1Alpha.ServerReflectionRequest(host: "h", messageRequest: .allExtensionNumbersOfType("a.B"))),
        Sample(ReflectionV1Alpha.ExtensionRequest(containingType: "a.B", extensionNumber: 9)),
        Sample(
            ReflectionV1Alpha.ServerReflectionResponse(
                validHost: "h", messageResponse: .errorResponse(ReflectionV1Alpha.ErrorResponse(errorCode: 3)))),
        Sample(ReflectionV1Alpha.FileDescriptorResponse(fileDescriptorProto: [[9]])),
        Sample(ReflectionV1Alpha.ExtensionNumberResponse(baseTypeName: "a.B", extensionNumber: [1])),
        Sample(ReflectionV1Alpha.ListServiceResponse(service: [ReflectionV1Alpha.ServiceResponse(name: "s")])),
        Sample(ReflectionV1Alpha.ServiceResponse(name: "s")),
        Sample(ReflectionV1Alpha.ErrorResponse(errorCode: 12, errorMessage: "m")),
    ]

    static let samples = search + interopAndHealth + reflection

    @Test("A message round-trips", arguments: samples)
    func messageRoundTrips(_ sample: Sample) throws {
        try Self.checkRoundTrip(sample.message)
    }

    @Test func everyGeneratedMessageTypeHasASample() {
        let sampled = Set(Self.samples.map { type(of: $0.message).protoName })
        let all = Set(GeneratedMessages.all.map { $0.protoName })
        #expect(all.count == 71)
        #expect(all.subtracting(sampled).sorted() == [])
    }

    @Test func defaultMessagesEncodeToNothing() throws {
        for type in GeneratedMessages.all {
            #expect(type.init().serializedBytes() == [], "\(type.protoName)")
            try Self.checkRoundTrip(type.init())
        }
    }

    @Test func unknownEnumValuesKeepTheirNumber() throws {
        let decoded = try Descriptor(serializedBytes: Descriptor(source: .unrecognized(1234)).serializedBytes())
        #expect(decoded.source == .unrecognized(1234))
        #expect(decoded.source.rawValue == 1234)
        #expect(Source(rawValue: 1) == .camera)
        #expect(Source.unrecognized(1) == .camera)
        #expect(Source.allCases == [.unspecified, .camera, .screenshot])
    }

    @Test func decodingAcceptsAnyCollectionOfBytes() throws {
        let bytes = Self.queryResult.serializedBytes()
        #expect(try QueryResult(serializedBytes: bytes[...]) == Self.queryResult)
        #expect(try QueryResult(serializedBytes: ContiguousArray(bytes)) == Self.queryResult)
        // Not contiguous: decoding copies first.
        #expect(try QueryResult(serializedBytes: bytes.lazy.map { $0 }) == Self.queryResult)
    }

    static func checkRoundTrip<M: ProtoMessage>(_ message: M) throws {
        let bytes = message.serializedBytes()
        try M.validate(serializedBytes: bytes)
        let decoded = try M(serializedBytes: bytes)
        #expect(decoded == message)
        #expect(decoded.serializedBytes() == bytes)
    }
}

extension String {
    fileprivate func trimmingSuffixSpace() -> String {
        hasSuffix(" ") ? String(dropLast()) : self
    }
}

/// No bytes decode to the all-defaults message (proto3), for every message type: the decoder
/// answers that case itself, without protobuf-c.
@Suite struct EmptyMessageTests {
    static let types: [any ProtoMessage.Type] = [
        Health.CheckRequest.self, Health.CheckResponse.self, Interop.Empty.self, Interop.SimpleRequest.self,
        Descriptor.self, Label.self, PixelBuffer.self, FeaturePrint.self, QueryRequest.self, QueryResponse.self,
        EntityRef.self, QueryResult.self, CaptureRequest.self, SearchRequest.self, AttributeFilter.self,
        FilterExpression.self, Sort.self, SearchState.self, Facet.self, ResolveRequest.self, Destination.self,
        LinkRequest.self, LinkResponse.self, Entity.self, UpsertEntitiesRequest.self, DeleteEntitiesRequest.self,
        CatalogUpdateResponse.self, CatalogInfoRequest.self, CatalogInfoResponse.self,
        ExplainRouteRequest.self, RouteExplanation.self, RouteCandidate.self, CheckRoutesRequest.self, RouteCheck.self,
        TypeRoute.self,
    ]

    /// protobuf-c's reading of a message with nothing but an unknown field (1000, varint 0)
    /// is what the shortcut answers for no bytes at all.
    static func decodesEmptyToDefaults<M: ProtoMessage>(_: M.Type) throws -> Bool {
        let throughProtobufC = try M(serializedBytes: [0xC0, 0x3E, 0x00])
        return try M(serializedBytes: [UInt8]()) == throughProtobufC && throughProtobufC == M()
            && M().serializedBytes().isEmpty
    }

    @Test("no bytes are the default message", arguments: 0..<types.count)
    func emptyIsDefault(index: Int) throws {
        #expect(try Self.decodesEmptyToDefaults(Self.types[index]), "\(Self.types[index])")
    }
}
