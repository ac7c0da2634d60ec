/// Why a JSON text is not a message of the API: the field and what is wrong with it.
public struct ProtoJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field's path from the outermost message (`descriptor.labels[0].confidence`), or empty
    /// when the problem is the text or the outermost value itself.
    public var path: String
    /// What is wrong there.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
