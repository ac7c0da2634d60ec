/// Why serialized bytes could not be decoded as a message.
///
/// The service maps every decoding error to the gRPC status `INTERNAL`. The ``message`` names the
/// field where the problem was found, as a path of proto field names from the outermost message,
/// e.g. `descriptor.labels[2].text: invalid UTF-8`.
public struct MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case truncated
            case tooDeep
            case invalidUTF8
            case nulInString
            case wrongWireType
            case malformed
        }

        private var wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// The bytes end inside a tag, a value or a length-delimited field.
        public static let truncated = Code(.truncated)
        /// Messages nest deeper than ``ProtoMessage/maximumNestingDepth``.
        public static let tooDeep = Code(.tooDeep)
        /// A string field holds bytes that are not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A string field holds a NUL byte, which protobuf-c would silently cut the string at.
        public static let nulInString = Code(.nulInString)
        /// A known field arrives with a wire type its type cannot have.
        public static let wrongWireType = Code(.wrongWireType)
        /// Anything else: an overlong varint, an invalid tag or wire type, a group, a packed
        /// field whose length does not fit its element size.
        public static let malformed = Code(.malformed)

        public var description: String {
            switch wrapped {
            case .truncated: "truncated"
            case .tooDeep: "tooDeep"
            case .invalidUTF8: "invalidUTF8"
            case .nulInString: "nulInString"
            case .wrongWireType: "wrongWireType"
            case .malformed: "malformed"
            }
        }
    }

    /// The kind of problem.
    public var code: Code

    /// The path of the field where the problem was found, e.g. `descriptor.labels[2].text`;
    /// empty when it is in the outermost message's own framing.
    public var fieldPath: String

    /// What is wrong, prefixed with ``fieldPath`` when there is one.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - fieldPath: The path of the field, or `""`.
    ///   - reason: What is wrong, without the path.
    public init(code: Code, fieldPath: String = "", reason: String) {
        self.code = code
        self.fieldPath = fieldPath
        self.message = fieldPath.isEmpty ? reason : "\(fieldPath): \(reason)"
    }

    public var description: String {
        "\(code): \(message)"
    }
}
