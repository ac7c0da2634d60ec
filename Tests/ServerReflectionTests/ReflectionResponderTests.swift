import SearchAPI
import ServerReflection
import Testing

/// Server reflection answered from the embedded descriptors.
@Suite struct ReflectionResponderTests {
    let responder = ReflectionResponder(
        services: ["vicontinue.v1.VisualSearch", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"])

    func ask(
        _ question: Reflection.ServerReflectionRequest.MessageRequest, sent: inout Set<String>
    ) -> Reflection.ServerReflectionResponse.MessageResponse? {
        responder.answer(Reflection.ServerReflectionRequest(host: "h", messageRequest: question), sent: &sent)
            .messageResponse
    }

    /// The `name` field (1) of a serialized FileDescriptorProto.
    func fileName(_ descriptor: [UInt8]) -> String? {
        guard descriptor.count > 2, descriptor[0] == 0x0A, Int(descriptor[1]) + 2 <= descriptor.count else {
            return nil
        }
        return String(decoding: descriptor[2..<(2 + Int(descriptor[1]))], as: UTF8.self)
    }

    @Test func listsTheServicesOffered() {
        var sent = Set<String>()
        guard case .listServicesResponse(let list)? = ask(.listServices(""), sent: &sent) else {
            Issue.record("no service list")
            return
        }
        #expect(list.service.map(\.name) == responder.services)
    }

    @Test(arguments: [
        ("vicontinue.v1.VisualSearch", "search.proto"),
        ("vicontinue.v1.VisualSearch.Capture", "search.proto"),
        (".vicontinue.v1.SearchState", "search.proto"),
        ("vicontinue.v1.FilterExpression", "search.proto"),
        ("grpc.health.v1.HealthCheckResponse.ServingStatus", "grpc/health/v1/health.proto"),
        ("grpc.reflection.v1.ServerReflection", "grpc/reflection/v1/reflection.proto"),
    ]) func findsTheFileOfASymbol(_ symbol: String, _ file: String) {
        var sent = Set<String>()
        guard case .fileDescriptorResponse(let files)? = ask(.fileContainingSymbol(symbol), sent: &sent) else {
            Issue.record("no file for \(symbol)")
            return
        }
        #expect(files.fileDescriptorProto.compactMap(fileName) == [file])
        #expect(sent == [file])
    }

    @Test func aFileGoesOutOncePerStreamUnlessAskedForAgain() {
        var sent = Set<String>()
        _ = ask(.fileByFilename("search.proto"), sent: &sent)
        guard case .fileDescriptorResponse(let again)? = ask(.fileContainingSymbol("vicontinue.v1.Label"), sent: &sent)
        else {
            Issue.record("no answer")
            return
        }
        #expect(again.fileDescriptorProto.compactMap(fileName) == ["search.proto"])
    }

    @Test func unknownQuestionsAreNotFound() {
        var sent = Set<String>()
        for question: Reflection.ServerReflectionRequest.MessageRequest in [
            .fileByFilename("nope.proto"), .fileContainingSymbol("vicontinue.v1.Nope"),
            .fileContainingExtension(
                Reflection.ExtensionRequest(containingType: "vicontinue.v1.Label", extensionNumber: 100)),
            .allExtensionNumbersOfType("vicontinue.v1.Nope"),
        ] {
            guard case .errorResponse(let error)? = ask(question, sent: &sent) else {
                Issue.record("\(question) answered")
                continue
            }
            #expect(error.errorCode == 5)
        }
        #expect(
            ask(.allExtensionNumbersOfType("vicontinue.v1.Label"), sent: &sent)
                == .allExtensionNumbersResponse(Reflection.ExtensionNumberResponse(baseTypeName: "vicontinue.v1.Label"))
        )
        #expect(sent.isEmpty)
    }

    @Test func theResponseEchoesTheRequest() {
        var sent = Set<String>()
        let request = Reflection.ServerReflectionRequest(host: "localhost:8080", messageRequest: .listServices("*"))
        let response = responder.answer(request, sent: &sent)
        #expect(response.validHost == "localhost:8080" && response.originalRequest == request)
    }

    /// v1alpha is v1 under another package name: the same bytes read as either.
    @Test func v1alphaIsTheSameOnTheWire() throws {
        let alpha = ReflectionV1Alpha.ServerReflectionRequest(host: "h", messageRequest: .fileContainingSymbol("x.Y"))
        let asV1 = try Reflection.ServerReflectionRequest(serializedBytes: alpha.serializedBytes())
        #expect(asV1 == Reflection.ServerReflectionRequest(host: "h", messageRequest: .fileContainingSymbol("x.Y")))
    }
}
