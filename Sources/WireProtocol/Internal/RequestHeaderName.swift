internal import Glibc

/// The request header names the server reads itself, recognised from the wire bytes so that the
/// common headers of a call cost no `String`.
enum RequestHeaderName {
    case method
    case path
    /// `:authority`: kept for a request that is not gRPC (Connect, gRPC-Web, `/healthz`), whose
    /// CORS check compares it with `Origin` as HTTP/1.1's `Host`.
    case authority
    case contentType
    case encoding
    case acceptEncoding
    case timeout
    /// A pseudo-header or hop-by-hop header the server ignores (`:scheme`, `te`).
    case ignored
    /// Anything else: a candidate for user metadata.
    case other

    init(_ name: UnsafeBufferPointer<UInt8>) {
        guard let first = name.first else {
            self = .other
            return
        }
        if first == UInt8(ascii: ":") {
            if Self.equal(name, ":path") {
                self = .path
            } else if Self.equal(name, ":method") {
                self = .method
            } else if Self.equal(name, ":authority") {
                self = .authority
            } else {
                self = .ignored
            }
        } else if first == UInt8(ascii: "g") {
            if Self.equal(name, "grpc-timeout") {
                self = .timeout
            } else if Self.equal(name, "grpc-encoding") {
                self = .encoding
            } else if Self.equal(name, "grpc-accept-encoding") {
                self = .acceptEncoding
            } else {
                self = .other
            }
        } else if Self.equal(name, "content-type") {
            self = .contentType
        } else if Self.equal(name, "te") {
            self = .ignored
        } else {
            self = .other
        }
    }

    /// Whether `bytes` spell `literal` exactly.
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }
}
