internal import Base64Coding

/// Custom metadata of a call: ordered key-value pairs sent as HTTP/2 headers or trailers.
///
/// Keys are lower-cased when added. Keys ending in `-bin` carry binary values, which travel
/// base64-encoded; all other values are ASCII strings. Reserved headers (pseudo-headers,
/// `grpc-*`, `content-type`, `te`) are never exposed here and never sent from here.
public struct Metadata: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// A metadata value.
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// A printable ASCII value, for keys not ending in `-bin`.
        case string(String)
        /// A binary value, for keys ending in `-bin`.
        case binary([UInt8])

        public init(stringLiteral value: String) { self = .string(value) }

        /// The string value, or `nil` for a binary value.
        public var stringValue: String? {
            if case .string(let s) = self { return s }
            return nil
        }

        /// The bytes: the binary value, or the UTF-8 of a string value.
        public var bytes: [UInt8] {
            switch self {
            case .string(let s): Array(s.utf8)
            case .binary(let b): b
            }
        }

        public var description: String {
            switch self {
            case .string(let s): s
            case .binary(let b): Base64.encode(b, padded: true)
            }
        }
    }

    /// One key-value pair.
    public struct Entry: Sendable, Hashable {
        /// The lower-cased key.
        public var key: String
        /// The value.
        public var value: Value
    }

    private var entries: [Entry]

    /// Creates empty metadata.
    public init() { entries = [] }

    public init(dictionaryLiteral elements: (String, Value)...) {
        entries = []
        entries.reserveCapacity(elements.count)
        for (key, value) in elements { add(key, value) }
    }

    /// The number of entries.
    public var count: Int { entries.count }
    /// Whether there are no entries.
    public var isEmpty: Bool { entries.isEmpty }

    /// Appends a value, keeping other values of the same key.
    ///
    /// - Parameters:
    ///   - key: The key; lower-cased.
    ///   - value: The value.
    public mutating func add(_ key: String, _ value: Value) {
        entries.append(Entry(key: key.lowercased(), value: value))
    }

    /// Appends a string value.
    public mutating func add(_ key: String, _ value: String) { add(key, .string(value)) }

    /// Appends a binary value; the key should end in `-bin`.
    public mutating func add(_ key: String, _ value: [UInt8]) { add(key, .binary(value)) }

    /// Removes every value of a key and adds the given one.
    public mutating func replace(_ key: String, _ value: Value) {
        let key = key.lowercased()
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, value: value))
    }

    /// Removes every value of a key.
    public mutating func removeAll(named key: String) {
        let key = key.lowercased()
        entries.removeAll { $0.key == key }
    }

    /// The first value of a key, if any.
    public func first(named key: String) -> Value? {
        let key = key.lowercased()
        return entries.first { $0.key == key }?.value
    }

    /// Every value of a key, in order.
    public func all(named key: String) -> [Value] {
        let key = key.lowercased()
        return entries.filter { $0.key == key }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    /// Appends every entry of another metadata.
    public mutating func append(contentsOf other: Metadata) { entries.append(contentsOf: other.entries) }

    /// Whether a header name is reserved for the protocol and so never user metadata.
    static func isReserved(_ key: String) -> Bool {
        if key.hasPrefix(":") { return true }
        if key.hasPrefix("grpc-") { return key != "grpc-status-details-bin" }
        switch key {
        case "content-type", "te", "connection", "keep-alive", "proxy-connection", "transfer-encoding",
            "upgrade", "host", "content-length":
            return true
        default: return false
        }
    }

    /// Adds a header received from the wire, decoding `-bin` values; reserved names and
    /// undecodable binary values are dropped.
    mutating func addFromWire(name: String, value: UnsafeBufferPointer<UInt8>) {
        if Metadata.isReserved(name) { return }
        if name.hasSuffix("-bin") {
            guard let bytes = Base64.decode(value) else { return }
            entries.append(Entry(key: name, value: .binary(bytes)))
        } else {
            entries.append(Entry(key: name, value: .string(String(decoding: value, as: UTF8.self))))
        }
    }
}
