import ContinueService
import Foundation
import SearchAPI
import Testing
import WireProtocol

/// `serve` picks up a changed catalog file without a restart: by polling, and on SIGHUP.
@Suite struct CatalogReloadTests {
    static let album = #"{"type":"album","id":"quiet-harbour","title":"Quiet Harbour","subtitle":"Nils Ahlgren"}"#
    static let newAlbum = #"{"type":"album","id":"zebra-crossing","title":"Zebra Crossing","subtitle":"Ilse Marr"}"#

    /// A catalog file in a fresh directory.
    static func catalog(_ lines: [String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vi-continue-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("catalog.jsonl")
        try write(lines, to: file)
        return file
    }

    /// Replaces the file the way a careful writer does: a new file renamed over the old one.
    static func write(_ lines: [String], to file: URL) throws {
        let next = file.appendingPathExtension("next")
        try (lines.joined(separator: "\n") + "\n").write(to: next, atomically: false, encoding: .utf8)
        #expect(rename(next.path, file.path) == 0, "rename: \(String(cString: strerror(errno)))")
    }

    /// The titles a labels query finds, waiting up to five seconds for `expected`.
    static func titles(
        _ label: String, client: ServiceClient, waitingFor expected: [String]
    ) async throws -> [String] {
        var titles: [String] = []
        for _ in 0..<50 {
            let request = QueryRequest(descriptor: SearchAPI.Descriptor(labels: [SearchAPI.Label(text: label)]))
            titles = try await client.query(request).results.map(\.title)
            if titles == expected { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return titles
    }

    @Test("a catalog file replaced on disk is served within the poll interval, bad lines skipped")
    func reloadsChangedFile() async throws {
        let file = try Self.catalog([Self.album])
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let serve = try ServeCommandTests.ServeProcess(arguments: ["--catalog", file.path, "--reload-interval", "0.2"])
        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: serve.port))
        #expect(try await Self.titles("zebra", client: client, waitingFor: []) == [])

        try Self.write([Self.album, "{not json", Self.newAlbum], to: file)
        #expect(try await Self.titles("zebra", client: client, waitingFor: ["Zebra Crossing"]) == ["Zebra Crossing"])
        #expect(try await Self.titles("harbour", client: client, waitingFor: ["Quiet Harbour"]) == ["Quiet Harbour"])

        // A file that vanished keeps the catalog that was loaded.
        try FileManager.default.removeItem(at: file)
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await Self.titles("zebra", client: client, waitingFor: ["Zebra Crossing"]) == ["Zebra Crossing"])
        await client.close()
        #expect(serve.terminate() == 0)
    }

    @Test("with polling off, SIGHUP reloads the catalog and deletions disappear")
    func reloadsOnSIGHUP() async throws {
        let file = try Self.catalog([Self.album, Self.newAlbum])
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let serve = try ServeCommandTests.ServeProcess(arguments: ["--catalog", file.path, "--reload-interval", "0"])
        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: serve.port))
        #expect(try await Self.titles("zebra", client: client, waitingFor: ["Zebra Crossing"]) == ["Zebra Crossing"])

        try Self.write([Self.album], to: file)
        try await Task.sleep(for: .milliseconds(300))
        #expect(
            try await client.query(QueryRequest(descriptor: .init(labels: [.init(text: "zebra")]))).results.count == 1)
        kill(serve.process.processIdentifier, SIGHUP)
        #expect(try await Self.titles("zebra", client: client, waitingFor: []) == [])
        await client.close()
        #expect(serve.terminate() == 0)
    }
}
