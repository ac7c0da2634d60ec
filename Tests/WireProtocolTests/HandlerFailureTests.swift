import Testing

@testable import WireProtocol

/// The one mapping from a handler's thrown error to the status every protocol sends.
@Suite struct HandlerFailureTests {
    struct Convertible: RPCErrorConvertible {
        var rpcErrorCode: Status.Code { .notFound }
        var rpcErrorMessage: String { "no such album" }
        var rpcErrorMetadata: Metadata { ["x-entity": "album:abbey-road"] }
    }

    struct Opaque: Error {}

    static let now = ContinuousClock.now

    /// What the handler threw, the deadline from now, and the status and metadata sent.
    static let cases: [(any Error, Duration?, Status, Metadata)] = [
        (
            RPCError(code: .permissionDenied, message: "no token", metadata: ["x-why": "token"]), nil,
            Status(code: .permissionDenied, message: "no token"), ["x-why": "token"]
        ),
        (Convertible(), nil, Status(code: .notFound, message: "no such album"), ["x-entity": "album:abbey-road"]),
        (CancellationError(), nil, Status(code: .cancelled, message: "the call was cancelled"), [:]),
        (CancellationError(), .seconds(1), Status(code: .cancelled, message: "the call was cancelled"), [:]),
        (CancellationError(), .zero, Status(code: .deadlineExceeded, message: "deadline exceeded"), [:]),
        (CancellationError(), .seconds(-1), Status(code: .deadlineExceeded, message: "deadline exceeded"), [:]),
        (Opaque(), nil, Status(code: .unknown, message: "handler failed: Opaque"), [:]),
    ]

    @Test("a thrown error becomes its status and metadata", arguments: cases)
    func mapsToStatus(error: any Error, deadlineFromNow: Duration?, status: Status, metadata: Metadata) {
        let mapped = HandlerFailure.status(
            of: error, deadline: deadlineFromNow.map { Self.now + $0 }, now: Self.now)
        #expect(mapped.status == status)
        #expect(mapped.metadata == metadata)
    }
}
