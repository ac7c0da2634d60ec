internal import Glibc

/// The served methods, found by the `:path` bytes as nghttp2 hands them over.
///
/// A call's path is matched before any `String` is made of it: the method's own `path` then
/// serves for the context and the call log, so a known path costs no allocation and no hashing.
/// A server has a dozen methods, so a scan comparing lengths first is all it takes.
struct MethodTable: Sendable {
    private let entries: [(path: [UInt8], method: ServerMethod)]

    /// A later method with the same path replaces an earlier one.
    init(_ methods: [ServerMethod]) {
        var entries: [(path: [UInt8], method: ServerMethod)] = []
        for method in methods {
            let bytes = Array(method.path.utf8)
            if let index = entries.firstIndex(where: { $0.path == bytes }) {
                entries[index].method = method
            } else {
                entries.append((bytes, method))
            }
        }
        self.entries = entries
    }

    /// The method served at `path`, if any.
    func method(forPath path: UnsafeBufferPointer<UInt8>) -> ServerMethod? {
        for entry in entries where entry.path.count == path.count {
            let same = entry.path.withUnsafeBufferPointer { known in
                path.count == 0 || memcmp(known.baseAddress!, path.baseAddress!, path.count) == 0
            }
            if same { return entry.method }
        }
        return nil
    }

    /// The method served at `path` given as a string (HTTP/1.1 requests).
    func method(forPath path: String) -> ServerMethod? {
        var path = path
        return path.withUTF8 { method(forPath: $0) }
    }
}
