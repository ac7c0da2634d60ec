import ContinueService
import SearchAPI
import WireProtocol

/// The interop test service (proto/interop.proto), served through the same transport and
/// typed-method glue as the product's services, for grpcio clients to exercise.
struct InteropTestService {
    static let path = "/vicontinue.testing.v1.InteropTest/"
    static let echoInitial = "x-grpc-test-echo-initial"
    static let echoTrailing = "x-grpc-test-echo-trailing-bin"

    var methods: [ServerMethod] {
        [
            .unary(Self.path + "EmptyCall", execution: .onLoop) { (_: Interop.Empty, _) in Interop.Empty() },
            ServerMethod(path: Self.path + "UnaryCall", kind: .unary, maxRequestBytes: 8 << 20) {
                bytes, context, writer in
                let request = try Interop.SimpleRequest(serializedBytes: bytes)
                echoMetadata(context, writer)
                if let expected = request.expectCompressed, expected.value != (context.requestCompression != .identity)
                {
                    throw RPCError(
                        code: .invalidArgument,
                        message: "expected a \(expected.value ? "compressed" : "plain") request")
                }
                if request.sleepMs > 0 {
                    try await Task.sleep(for: .milliseconds(Int(request.sleepMs)))
                }
                if let status = request.responseStatus, status.code != 0 {
                    throw RPCError(code: Status.Code(rawValue: Int(status.code)), message: status.message)
                }
                let response = Interop.SimpleResponse(
                    payload: Interop.Payload(body: [UInt8](repeating: 0, count: Int(request.responseSize))))
                try await writer.write(response.serializedBytes(), compression: compression(request.responseCompressed))
            },
            ServerMethod(path: Self.path + "StreamingOutputCall", kind: .serverStreaming) { bytes, context, writer in
                let request = try Interop.StreamingOutputCallRequest(serializedBytes: bytes)
                echoMetadata(context, writer)
                for parameters in request.responseParameters {
                    if parameters.intervalUs > 0 {
                        try await Task.sleep(for: .microseconds(Int(parameters.intervalUs)))
                    }
                    let response = Interop.StreamingOutputCallResponse(
                        payload: Interop.Payload(body: [UInt8](repeating: 0, count: Int(parameters.size))))
                    try await writer.write(response.serializedBytes(), compression: compression(parameters.compressed))
                }
                if let status = request.responseStatus, status.code != 0 {
                    throw RPCError(code: Status.Code(rawValue: Int(status.code)), message: status.message)
                }
            },
            ServerMethod(streamingPath: Self.path + "StreamingInputCall", kind: .clientStreaming) {
                requests, _, writer in
                var size = 0
                for try await bytes in requests {
                    size += try Interop.StreamingInputCallRequest(serializedBytes: bytes).payload?.body.count ?? 0
                }
                try await writer.write(
                    Interop.StreamingInputCallResponse(aggregatedPayloadSize: Int32(size)).serializedBytes())
            },
            // Each request is answered as it arrives, before the next is read: ping-pong.
            ServerMethod(streamingPath: Self.path + "FullDuplexCall", kind: .bidirectionalStreaming) {
                requests, context, writer in
                echoMetadata(context, writer)
                for try await bytes in requests {
                    let request = try Interop.StreamingOutputCallRequest(serializedBytes: bytes)
                    for parameters in request.responseParameters {
                        if parameters.intervalUs > 0 {
                            try await Task.sleep(for: .microseconds(Int(parameters.intervalUs)))
                        }
                        let response = Interop.StreamingOutputCallResponse(
                            payload: Interop.Payload(body: [UInt8](repeating: 0, count: Int(parameters.size))))
                        try await writer.write(
                            response.serializedBytes(), compression: compression(parameters.compressed))
                    }
                    if let status = request.responseStatus, status.code != 0 {
                        throw RPCError(code: Status.Code(rawValue: Int(status.code)), message: status.message)
                    }
                }
            },
        ]
    }
}

private func echoMetadata(_ context: ServerContext, _ writer: any ResponseWriter) {
    var initial: Metadata = [:]
    var trailing: Metadata = [:]
    if let value = context.requestMetadata.first(named: InteropTestService.echoInitial) {
        initial.add(InteropTestService.echoInitial, value)
    }
    if let value = context.requestMetadata.first(named: InteropTestService.echoTrailing) {
        trailing.add(InteropTestService.echoTrailing, value)
    }
    writer.setInitialMetadata(initial)
    writer.setTrailingMetadata(trailing)
}

private func compression(_ flag: Interop.BoolValue?) -> CompressionAlgorithm? {
    guard let flag else { return nil }
    return flag.value ? .gzip : .identity
}
