import Foundation
import Testing

/// `catalog import|upsert|delete` against a real server, with the updates checked by queries.
@Suite(.serialized) struct CatalogCommandTests {
    static let newEntities = """
        {"type": "album", "id": "quokka-sessions", "title": "Quokka Sessions", "category": "Music/Jazz", "tags": ["quokka"]}
        {"synonyms": ["quokka", "kwokka"]}
        this line is not JSON
        {"type": "album", "id": "no-title"}
        {"type": "concert", "id": "7001", "title": "Quokka Live", "attributes": {"city": "Perth", "year": 2026}}

        """

    @Test("import applies the good lines, lists the bad ones by line number and exits 1")
    func importFile() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let file = directory.path + "/new.jsonl"
        try Self.newEntities.write(toFile: file, atomically: true, encoding: .utf8)
        let output = try await CLI.run(
            ["catalog", "import", file, "--server", server.address], environment: server.tokenEnvironment)
        #expect(output.status == 1)
        try Snapshot.check(
            "catalog-import", ["catalog", "import", "new.jsonl", "--server", server.address],
            CLI.Output(
                status: output.status, stdout: output.stdout.replacingOccurrences(of: directory.path + "/", with: ""),
                stderr: output.stderr.replacingOccurrences(of: directory.path + "/", with: "")))
        let query = try await CLI.run(["query", "--labels", "quokka", "--server", server.address])
        #expect(query.status == 0)
        #expect(query.stdout.contains("Quokka Sessions") && query.stdout.contains("Quokka Live"))

        let json = try await CLI.run(
            ["catalog", "import", file, "--json", "--server", server.address], environment: server.tokenEnvironment)
        try Snapshot.check(
            "catalog-import-json", ["catalog", "import", "new.jsonl", "--json", "--server", server.address],
            CLI.Output(
                status: json.status, stdout: json.stdout.replacingOccurrences(of: directory.path + "/", with: ""),
                stderr: json.stderr.replacingOccurrences(of: directory.path + "/", with: "")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["applied"] as? Int == 2)
        let lines = (object["errors"] as? [[String: Any]])?.compactMap { $0["line"] as? Int }
        #expect(lines == [3, 4])
        #expect(object["skipped_synonym_lines"] as? [Int] == [2])
    }

    @Test("upsert sends nothing when a line is bad (exit 2), and everything when all are good")
    func upsertAllOrNothing() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let bad = try await CLI.run(
            ["catalog", "upsert", "-", "--server", server.address], stdin: Self.newEntities,
            environment: server.tokenEnvironment)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("error: - line 3: "))
        #expect(bad.stderr.hasSuffix("error: - has 2 bad lines; nothing was sent\n"))
        #expect(try await CLI.run(["query", "--labels", "quokka", "--server", server.address]).status == 1)

        let good = #"{"type": "album", "id": "wombat-waltz", "title": "Wombat Waltz"}"# + "\n"
        let output = try await Snapshot.run(
            "catalog-upsert", ["catalog", "upsert", "-", "--json", "--server", server.address], stdin: good,
            environment: server.tokenEnvironment)
        #expect(output.status == 0)
        let replaced = try await Snapshot.run(
            "catalog-upsert-text", ["catalog", "upsert", "-", "--server", server.address], stdin: good,
            environment: server.tokenEnvironment)
        #expect(replaced.status == 0)
        let query = try await CLI.run(["query", "--labels", "wombat", "--json", "--server", server.address])
        #expect(query.stdout.contains(#""deep_link":"music://album/wombat-waltz""#))
    }

    @Test("delete removes entities and exits 1 naming those that were not there")
    func delete() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let before = try await CLI.run(["open", "album:blue-river", "--server", server.address])
        #expect(before.status == 0)
        let query = try await CLI.run([
            "query", "--labels", "jazz", "--limit", "1", "--json", "--server", server.address,
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(query.stdout.utf8)) as? [String: Any])
        let first = try #require((object["results"] as? [[String: Any]])?.first)
        let target = "\(first["type"] as? String ?? ""):\(first["id"] as? String ?? "")"

        let output = try await CLI.run(
            ["catalog", "delete", target, "album:not-there", "--server", server.address],
            environment: server.tokenEnvironment)
        #expect(output.status == 1)
        try Snapshot.check("catalog-delete", ["catalog", "delete", target, "album:not-there"], output)
        let after = try await CLI.run([
            "query", "--labels", "jazz", "--limit", "20", "--json", "--server", server.address,
        ])
        #expect(!after.stdout.contains(#""id":"\#(first["id"] as? String ?? "")""#))
        let snapshot = try await Snapshot.run(
            "catalog-delete-json", ["catalog", "delete", "album:not-there", "--json", "--server", server.address],
            environment: server.tokenEnvironment)
        #expect(snapshot.status == 1)
    }
}
