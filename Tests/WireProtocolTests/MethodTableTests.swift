import Testing

@testable import WireProtocol

/// Finding a served method from the `:path` bytes.
@Suite struct MethodTableTests {
    static func method(_ path: String, tag: UInt8) -> ServerMethod {
        ServerMethod(unaryPath: path) { _, _ in [tag] }
    }

    static let table = MethodTable([
        method("/a.S/Get", tag: 1), method("/a.S/Put", tag: 2), method("/b.T/LongerName", tag: 3),
        method("/a.S/Put", tag: 4),
    ])

    static func tag(_ path: String) throws -> UInt8? {
        var bytes = path
        guard let method = bytes.withUTF8({ table.method(forPath: $0) }) else { return nil }
        return try method.synchronousHandler?([], ServerContext(path: path)).first
    }

    @Test("each path finds its method; a later method with the same path wins")
    func findsByPath() throws {
        #expect(try Self.tag("/a.S/Get") == 1)
        #expect(try Self.tag("/a.S/Put") == 4)
        #expect(try Self.tag("/b.T/LongerName") == 3)
    }

    @Test(
        "paths that differ in a byte, a length or a case find nothing",
        arguments: ["/a.S/Gez", "/a.S/Ge", "/a.S/Gett", "/A.S/Get", "", "/"])
    func unknownPaths(path: String) throws {
        #expect(try Self.tag(path) == nil)
    }
}
