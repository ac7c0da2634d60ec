internal import JSONReading

/// An error as the Connect protocol sends it: an HTTP status and a JSON body
/// `{"code":"not_found","message":"…"}`, made from the gRPC status code and message the handler
/// produced, so Connect and gRPC clients see the same error.
public struct ConnectError: Error, Hashable, Sendable {
    /// The gRPC status code (1–16).
    public var grpcCode: Int
    /// The message for people.
    public var message: String

    public init(grpcCode: Int, message: String) {
        self.grpcCode = grpcCode
        self.message = message
    }

    /// The Connect name of the code (`invalid_argument`).
    public var code: String { Self.names[grpcCode] ?? "unknown" }

    /// The HTTP status the Connect protocol gives the code.
    public var httpStatus: Int { Self.httpStatuses[grpcCode] ?? 500 }

    /// The error's JSON body.
    public func jsonBody() -> [UInt8] {
        var body = Array(#"{"code":""#.utf8) + Array(code.utf8) + [UInt8(ascii: "\"")]
        if !message.isEmpty {
            body += Array(#","message":"#.utf8)
            JSONStringLiteral.append(message, to: &body)
        }
        return body + [UInt8(ascii: "}")]
    }

    /// The gRPC code of a Connect code name, for clients reading an error body.
    public static func grpcCode(named name: String) -> Int? {
        names.first { $0.value == name }?.key
    }

    private static let names: [Int: String] = [
        1: "canceled", 2: "unknown", 3: "invalid_argument", 4: "deadline_exceeded", 5: "not_found",
        6: "already_exists", 7: "permission_denied", 8: "resource_exhausted", 9: "failed_precondition",
        10: "aborted", 11: "out_of_range", 12: "unimplemented", 13: "internal", 14: "unavailable",
        15: "data_loss", 16: "unauthenticated",
    ]

    /// The Connect protocol's table (connectrpc.com/docs/protocol, "Error Codes").
    private static let httpStatuses: [Int: Int] = [
        1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400,
        12: 501, 13: 500, 14: 503, 15: 500, 16: 401,
    ]
}
