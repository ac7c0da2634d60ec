internal import Base64Coding
public import SearchAPI

/// Answers gRPC server reflection questions from the descriptors embedded at build time
/// (``SchemaFiles``), without I/O: the transport feeds each request of a reflection stream in
/// and writes each response out. v1 and v1alpha are the same messages on the wire, so one
/// responder serves both.
public struct ReflectionResponder: Sendable {
    /// The services offered, fully qualified, in the order listed.
    public let services: [String]
    private let files: [String: (dependencies: [String], descriptor: [UInt8])]
    private let fileOfSymbol: [String: String]
    /// Message types known, for `all_extension_numbers_of_type` (none has extensions).
    private let messageTypes: Set<String>

    /// A responder for a server offering `services`, describing `schema`.
    public init(services: [String], schema: [SchemaFiles.File] = SchemaFiles.all) {
        self.services = services
        var files = [String: (dependencies: [String], descriptor: [UInt8])]()
        var fileOfSymbol = [String: String]()
        for file in schema {
            files[file.name] = (file.dependencies, Base64.decode(file.descriptorBase64) ?? [])
            for symbol in file.symbols { fileOfSymbol[symbol] = file.name }
        }
        self.files = files
        self.fileOfSymbol = fileOfSymbol
        messageTypes = Set(GeneratedMessages.all.map { $0.protoName })
    }

    /// The answer to `request` on a stream that has already been sent the files in `sent`
    /// (updated: a file goes out once per stream, as the protocol allows).
    public func answer(
        _ request: Reflection.ServerReflectionRequest, sent: inout Set<String>
    ) -> Reflection.ServerReflectionResponse {
        var response = Reflection.ServerReflectionResponse(validHost: request.host, originalRequest: request)
        response.messageResponse = content(request.messageRequest, sent: &sent)
        return response
    }

    private func content(
        _ question: Reflection.ServerReflectionRequest.MessageRequest?, sent: inout Set<String>
    ) -> Reflection.ServerReflectionResponse.MessageResponse {
        switch question {
        case .fileByFilename(let name):
            guard files[name] != nil else { return notFound("no file \(name)") }
            return .fileDescriptorResponse(filesFor(name, sent: &sent))
        case .fileContainingSymbol(let symbol):
            let name = symbol.hasPrefix(".") ? String(symbol.dropFirst()) : symbol
            guard let file = fileOfSymbol[name] else { return notFound("no symbol \(name)") }
            return .fileDescriptorResponse(filesFor(file, sent: &sent))
        case .fileContainingExtension(let extensionRequest):
            return notFound(
                "no extension \(extensionRequest.extensionNumber) of \(extensionRequest.containingType): the API has none"
            )
        case .allExtensionNumbersOfType(let type):
            guard messageTypes.contains(type) else { return notFound("no message type \(type)") }
            return .allExtensionNumbersResponse(Reflection.ExtensionNumberResponse(baseTypeName: type))
        case .listServices:
            return .listServicesResponse(
                Reflection.ListServiceResponse(service: services.map { Reflection.ServiceResponse(name: $0) }))
        case nil:
            return .errorResponse(Reflection.ErrorResponse(errorCode: 3, errorMessage: "the request asks nothing"))
        }
    }

    /// The file and the files it imports, transitively, that `sent` lacks; imports first, as a
    /// client builds its descriptor pool in that order.
    private func filesFor(_ name: String, sent: inout Set<String>) -> Reflection.FileDescriptorResponse {
        var ordered = [[UInt8]]()
        func visit(_ file: String) {
            guard !sent.contains(file), let entry = files[file] else { return }
            sent.insert(file)
            for dependency in entry.dependencies { visit(dependency) }
            ordered.append(entry.descriptor)
        }
        // The file asked for is sent even if sent before: the client asked for it again.
        sent.remove(name)
        visit(name)
        return Reflection.FileDescriptorResponse(fileDescriptorProto: ordered)
    }

    private func notFound(_ message: String) -> Reflection.ServerReflectionResponse.MessageResponse {
        .errorResponse(Reflection.ErrorResponse(errorCode: 5, errorMessage: message))
    }
}
