/// A per-message compression algorithm, named as in `grpc-encoding`.
public enum CompressionAlgorithm: Sendable, Hashable, CaseIterable {
    /// No compression.
    case identity
    /// gzip (RFC 1952).
    case gzip
    /// zlib (RFC 1950), called "deflate" by gRPC.
    case deflate

    /// The name used in `grpc-encoding` and `grpc-accept-encoding`.
    public var name: String {
        switch self {
        case .identity: "identity"
        case .gzip: "gzip"
        case .deflate: "deflate"
        }
    }

    /// Looks an algorithm up by its `grpc-encoding` name.
    ///
    /// - Parameter name: The name, compared case-sensitively as the spec requires.
    public init?(name: String) {
        switch name {
        case "identity": self = .identity
        case "gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }
}
