internal import Base64Coding
public import HTTP1

/// A unary call in the Connect protocol, read from an HTTP request: which codec its message is
/// in, the message, and the client's timeout. The transport decompresses (`contentEncoding`),
/// calls the method as gRPC would, and writes the answer with ``ConnectUnary/responseFields(for:)``
/// or a ``ConnectError``.
public struct ConnectUnaryRequest: Sendable, Hashable {
    /// How a message is written.
    public enum Codec: String, Sendable, Hashable {
        /// proto3 JSON (`application/json`).
        case json
        /// The protobuf wire format (`application/proto`).
        case proto

        /// The media type of an unary message or response in this codec.
        public var contentType: String { self == .json ? "application/json" : "application/proto" }
    }

    public var codec: Codec
    /// The request message as sent (compressed when `contentEncoding` is not identity).
    public var message: [UInt8]
    /// `identity` or `gzip`.
    public var contentEncoding: String
    /// The client's `Connect-Timeout-Ms`, if it sent one.
    public var timeout: Duration?
    /// Whether the call came as a GET (a cacheable, side-effect-free call).
    public var isGet: Bool
}

/// Reads Connect unary requests (POST and GET) and names the response's fields.
public enum ConnectUnary {
    /// The codec of a POST's `Content-Type`, or `nil` when it is not a Connect unary type
    /// (the caller answers 415).
    public static func codec(contentType: String) -> ConnectUnaryRequest.Codec? {
        switch contentType.mediaType {
        case "application/json": return .json
        case "application/proto", "application/protobuf", "application/x-protobuf": return .proto
        default: return nil
        }
    }

    /// Reads a POST: the head's fields and the whole body.
    public static func post(_ head: HTTP1RequestHead, body: [UInt8]) throws(ConnectError) -> ConnectUnaryRequest {
        guard let codec = codec(contentType: head.field("content-type") ?? "") else {
            throw ConnectError(grpcCode: 3, message: "Content-Type must be application/json or application/proto")
        }
        try checkProtocolVersion(head.field("connect-protocol-version"))
        return ConnectUnaryRequest(
            codec: codec, message: body, contentEncoding: try encoding(head.field("content-encoding")),
            timeout: try timeout(head.field("connect-timeout-ms")), isGet: false)
    }

    /// Reads a GET: the message and its codec travel in the query
    /// (`?encoding=json&message=…`, `base64=1` for base64url, `compression=gzip`, `connect=v1`).
    public static func get(_ head: HTTP1RequestHead) throws(ConnectError) -> ConnectUnaryRequest {
        var parameters = [String: String]()
        for pair in head.query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : "")
            else {
                throw ConnectError(grpcCode: 3, message: "the query is not percent-encoded")
            }
            guard parameters[name] == nil else {
                throw ConnectError(grpcCode: 3, message: "the query sets \(name) twice")
            }
            parameters[name] = value
        }
        guard let codecName = parameters["encoding"] else {
            throw ConnectError(grpcCode: 3, message: "a GET needs ?encoding=json or ?encoding=proto")
        }
        guard let codec = ConnectUnaryRequest.Codec(rawValue: codecName) else {
            throw ConnectError(grpcCode: 3, message: "encoding \(codecName) is neither json nor proto")
        }
        if let version = parameters["connect"], version != "v1" {
            throw ConnectError(grpcCode: 3, message: "connect=\(version): only v1 is spoken")
        }
        var message = Array((parameters["message"] ?? "").utf8)
        switch parameters["base64"] {
        case nil, "0": break
        case "1":
            guard let decoded = Base64.decode(message) else {
                throw ConnectError(grpcCode: 3, message: "message is not base64url")
            }
            message = decoded
        case let other?:
            throw ConnectError(grpcCode: 3, message: "base64=\(other): use 1 or leave it out")
        }
        return ConnectUnaryRequest(
            codec: codec, message: message, contentEncoding: try encoding(parameters["compression"]),
            timeout: try timeout(head.field("connect-timeout-ms")), isGet: true)
    }

    /// The fields of a successful answer in `codec` (the transport adds length and CORS).
    public static func responseFields(for codec: ConnectUnaryRequest.Codec) -> [HTTP1RequestHead.Field] {
        [.init(name: "content-type", value: codec.contentType)]
    }

    /// The fields of an error answer.
    public static let errorFields: [HTTP1RequestHead.Field] = [.init(name: "content-type", value: "application/json")]

    private static func checkProtocolVersion(_ version: String?) throws(ConnectError) {
        // Connect clients send version 1; curl and hand-written clients may leave it out.
        if let version, version != "1" {
            throw ConnectError(grpcCode: 3, message: "Connect-Protocol-Version \(version): only 1 is spoken")
        }
    }

    private static func encoding(_ name: String?) throws(ConnectError) -> String {
        switch name?.lowercased() ?? "identity" {
        case "identity", "": return "identity"
        case "gzip": return "gzip"
        case let other: throw ConnectError(grpcCode: 12, message: "compression \(other) is not supported (gzip is)")
        }
    }

    private static func timeout(_ text: String?) throws(ConnectError) -> Duration? {
        guard let text else { return nil }
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let milliseconds = Int64(text)
        else {
            throw ConnectError(grpcCode: 3, message: "Connect-Timeout-Ms must be 1 to 10 digits")
        }
        return .milliseconds(milliseconds)
    }

    /// Percent-decoding of a query component, `+` as a space (form encoding, as browsers send).
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes = [UInt8]()
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"): bytes.append(0x20)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
