import Synchronization
import Testing
import WireProtocol

/// A writer that records, as a service's unit tests would use to call handlers without a server.
final class RecordingWriter: ResponseWriter {
    let written = Mutex<[[UInt8]]>([])
    func setInitialMetadata(_ metadata: Metadata) {}
    func write(_ message: [UInt8], compression: CompressionAlgorithm?) async throws {
        written.withLock { $0.append(message) }
    }
    func setTrailingMetadata(_ metadata: Metadata) {}
}

@Suite struct HandlerUnitTests {
    @Test func aHandlerCanBeCalledWithoutAServer() async throws {
        let method = ServerMethod(path: "/t.S/M", kind: .serverStreaming) { request, context, writer in
            #expect(context.requestMetadata.first(named: "k") == .string("v"))
            for byte in request { try await writer.write([byte]) }
        }
        let writer = RecordingWriter()
        try await method.handler([1, 2, 3], ServerContext(path: "/t.S/M", requestMetadata: ["k": "v"]), writer)
        #expect(writer.written.withLock { $0 } == [[1], [2], [3]])
    }
}
