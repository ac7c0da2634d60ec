import SearchAPI
import ServerReflection
public import WireProtocol

/// gRPC server reflection (`grpc.reflection.v1` and `v1alpha`), so generic tools (grpcurl,
/// grpcui, Postman, Evans) can list the services and read their schema from the server.
///
/// Each stream is answered request by request from the descriptors embedded at build time;
/// a file goes out once per stream (the protocol lets the client keep what it was sent). The
/// handlers run in tasks and never block: answers are lookups in memory.
public struct ReflectionService: Sendable {
    /// The fully qualified services a server offers, reflection included.
    public let services: [String]
    private let responder: ReflectionResponder

    /// The services `vi-continue serve` answers.
    public static let servedServices = [
        "vicontinue.v1.VisualSearch", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    ]

    /// A reflection service listing `services`.
    public init(services: [String] = ReflectionService.servedServices) {
        self.services = services
        responder = ReflectionResponder(services: services)
    }

    /// The methods to serve: one bidirectional stream each for v1 and v1alpha, which are the
    /// same messages on the wire.
    public var methods: [ServerMethod] {
        [MethodPaths.ServerReflection.v1, MethodPaths.ServerReflection.v1alpha].map { path in
            ServerMethod(
                streamingPath: path, kind: .bidirectionalStreaming, maxRequestBytes: 64 << 10, execution: .offLoop
            ) {
                [responder] requests, _, writer in
                var sent = Set<String>()
                for try await bytes in requests {
                    let request: Reflection.ServerReflectionRequest = try decode(bytes)
                    try await writer.write(responder.answer(request, sent: &sent).serializedBytes())
                }
            }
        }
    }
}
