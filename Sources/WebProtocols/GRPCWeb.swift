internal import Base64Coding
public import HTTP1

/// The gRPC-Web protocol (github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md) around the same
/// length-prefixed messages as gRPC: what differs is that a browser cannot read HTTP trailers,
/// so the status travels in the body as a last frame with flag 0x80, and that the `-text`
/// variant base64-encodes the body for clients that cannot read binary.
public enum GRPCWeb {
    /// How a gRPC-Web body is written.
    public enum Mode: Sendable, Hashable {
        /// `application/grpc-web` or `application/grpc-web+proto`.
        case binary
        /// `application/grpc-web-text` or `application/grpc-web-text+proto`: base64.
        case text

        /// The response's content type.
        public var contentType: String {
            self == .text ? "application/grpc-web-text+proto" : "application/grpc-web+proto"
        }
    }

    /// The mode of a request's `Content-Type`, or `nil` when it is not gRPC-Web with protobuf.
    public static func mode(contentType: String) -> Mode? {
        switch contentType.mediaType {
        case "application/grpc-web", "application/grpc-web+proto": return .binary
        case "application/grpc-web-text", "application/grpc-web-text+proto": return .text
        default: return nil
        }
    }

    /// The length-prefixed frames of a request body: as sent in binary mode, decoded in text
    /// mode; `nil` when a text body is not base64.
    public static func requestFrames(_ body: [UInt8], mode: Mode) -> [UInt8]? {
        mode == .binary ? body : Base64.decodeConcatenated(body)
    }

    /// One message frame: flag 0 (uncompressed), big-endian length, the message.
    public static func messageFrame(_ message: some Collection<UInt8>) -> [UInt8] {
        frame(flag: 0, message)
    }

    /// The trailer frame that ends a response: flag 0x80, then the trailers as an HTTP/1 header
    /// block (`grpc-status:0\r\ngrpc-message:…\r\n`), names lowercased. Values are as gRPC sends
    /// them (the message already percent-encoded).
    public static func trailerFrame(_ trailers: [HTTP1RequestHead.Field]) -> [UInt8] {
        var block = [UInt8]()
        for field in trailers {
            block += Array(field.name.lowercased().utf8)
            block.append(UInt8(ascii: ":"))
            block += field.value.utf8.map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 }
            block += [0x0D, 0x0A]
        }
        return frame(flag: 0x80, block)
    }

    /// Response body bytes as sent in `mode`: unchanged in binary, base64 (padded, so pieces
    /// written one after another still decode) in text.
    public static func responseBytes(_ bytes: [UInt8], mode: Mode) -> [UInt8] {
        guard mode == .text else { return bytes }
        var out = [UInt8]()
        Base64.encode(bytes, into: &out)
        return out
    }

    /// The fields of a response head in `mode` (the transport adds framing and CORS).
    public static func responseFields(for mode: Mode) -> [HTTP1RequestHead.Field] {
        [.init(name: "content-type", value: mode.contentType)]
    }

    private static func frame(flag: UInt8, _ payload: some Collection<UInt8>) -> [UInt8] {
        let length = UInt32(payload.count)
        var out: [UInt8] = [
            flag, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
        ]
        out += payload
        return out
    }
}
