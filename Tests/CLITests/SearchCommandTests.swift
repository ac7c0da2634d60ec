import Foundation
import SearchSession
import Testing

/// `query`, `capture` and `search`: in-process on the test catalog and against a real server.
@Suite(.serialized) struct SearchCommandTests {
    static let inProcess = ["--catalog", CLI.catalog, "--routes", CLI.routes]

    @Test("query prints the sheet: types, titles, how each matched, related results marked, deep links")
    func query() async throws {
        // A label that is an album's title: the album is identified, so its artist and the
        // artist's other album come along, marked.
        let arguments = ["query", "--labels", "second road,jazz", "--limit", "6"] + Self.inProcess
        let text = try await Snapshot.run("query", arguments)
        #expect(text.status == 0)
        let json = try await Snapshot.run("query-json", arguments + ["--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 6)
        #expect(results.allSatisfy { ($0["deep_link"] as? String)?.hasPrefix("music://") == true })
        let related = results.filter { $0["match"] as? String == "related" }
        #expect(!related.isEmpty)
        #expect(related.allSatisfy { ($0["related_to"] as? [String: Any])?["id"] as? String == "second-road" })
    }

    @Test("query --locale shows the titles of that locale")
    func queryLocale() async throws {
        let output = try await Snapshot.run(
            "query-locale-de", ["query", "--labels", "jazz", "--locale", "de", "--limit", "3"] + Self.inProcess)
        #expect(output.status == 0)
        #expect(output.stdout.contains("Jazz: Grundlagen"))
    }

    @Test("a query nothing matches prints no results and exits 1")
    func queryNoMatch() async throws {
        let output = try await Snapshot.run("query-no-match", ["query", "--labels", "xylophone-zz"] + Self.inProcess)
        #expect(output.status == 1)
        let json = try await CLI.run(["query", "--labels", "xylophone-zz", "--json"] + Self.inProcess)
        #expect(json.status == 1)
        #expect(json.stdout == #"{"results":[]}"# + "\n")
    }

    @Test("query --batch answers each line in order, a bad line with an error line, exit 0")
    func batch() async throws {
        let directory = try TemporaryDirectory()
        let batch = directory.path + "/queries.jsonl"
        try """
        {"labels": ["jazz"], "limit": 2}
        not json
        {"labels": "concert,vienna", "limit": 3}

        {"image": "missing.png"}
        {"labels": [], "limit": 1}
        {"labels": ["xylophone-zz"]}
        {"labels": ["piano"], "limit": 0}
        """.write(toFile: batch, atomically: true, encoding: .utf8)
        let arguments = ["query", "--batch", batch, "--json"] + Self.inProcess
        let output = try await CLI.run(arguments)
        #expect(output.status == 0, "\(output.stderr)")
        try Snapshot.check(
            "query-batch", ["query", "--batch", "queries.jsonl", "--json"] + Self.inProcess,
            CLI.Output(
                status: output.status, stdout: output.stdout.replacingOccurrences(of: directory.path, with: "TMP"),
                stderr: output.stderr))
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        let numbers = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["line"] as? Int
        }
        #expect(numbers == [1, 2, 3, 5, 6, 7, 8])
        // Every answered line says how long its call took; an error line has no time.
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let took = object["took_ms"] as? Double
            #expect((object["results"] != nil) == (took != nil), "\(line)")
            if let took { #expect(took > 0 && took < 10_000) }
        }
        #expect(lines[1].contains(#""error":"line 2: not a JSON object""#))
        #expect(lines[3].contains(#""error""#) && lines[3].contains("missing.png"))
        #expect(lines[5].contains(#""results":[]"#))
    }

    @Test("query --batch with an unreadable file exits 2")
    func batchUnreadable() async throws {
        let output = try await CLI.run(["query", "--batch", "/nonexistent/queries.jsonl"] + Self.inProcess)
        #expect(output.status == 2)
        #expect(output.stderr == "error: --batch: cannot read /nonexistent/queries.jsonl\n")
    }

    @Test(
        "query --image decodes a PNG or a JPEG into a pixel buffer that finds the entity made from it",
        arguments: ["png", "jpeg"])
    func queryImage(format: String) async throws {
        let directory = try TemporaryDirectory()
        // Two distinct pictures; the catalog computes their prints from the PNG files at load,
        // and the query sends the same picture in the format under test.
        for (name, seed) in [("sunrise", 3), ("waves", 11)] {
            var rgb = [UInt8](repeating: 0, count: 96 * 64 * 3)
            for y in 0..<64 {
                for x in 0..<96 {
                    let index = (y * 96 + x) * 3
                    rgb[index] = UInt8((x * seed + y * 7) & 0xFF)
                    rgb[index + 1] = UInt8((y * seed * 3) & 0xFF)
                    rgb[index + 2] = UInt8(((x ^ y) * seed) & 0xFF)
                }
            }
            try Data(ImageEncoder.png(width: 96, height: 64, rgb: rgb)).write(
                to: URL(fileURLWithPath: directory.path + "/\(name).png"))
            try Data(ImageEncoder.jpeg(width: 96, height: 64, rgb: rgb, quality: 90)).write(
                to: URL(fileURLWithPath: directory.path + "/\(name).jpeg"))
        }
        try """
        {"type": "album", "id": "sunrise", "title": "Sunrise", "image_file": "sunrise.png"}
        {"type": "album", "id": "waves", "title": "Waves", "image_file": "waves.png"}
        """.write(toFile: directory.path + "/catalog.jsonl", atomically: true, encoding: .utf8)
        let output = try await CLI.run([
            "query", "--image", directory.path + "/waves.\(format)", "--catalog", directory.path + "/catalog.jsonl",
            "--routes", CLI.routes, "--json",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let first = try #require((object["results"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "waves")
        #expect(first["match"] as? String == "image")
        #expect(first["deep_link"] as? String == "music://album/waves")
    }

    @Test("query --print-file sends a client feature print, compared only with prints of its model")
    func queryPrintFile() async throws {
        let directory = try TemporaryDirectory()
        try """
        {"type": "album", "id": "near", "title": "Near", "print": {"model": "test-model", "values": [1, 0, 0, 0]}}
        {"type": "album", "id": "far", "title": "Far", "print": {"model": "test-model", "values": [0, 0, 0, 1]}}
        """.write(toFile: directory.path + "/catalog.jsonl", atomically: true, encoding: .utf8)
        try #"{"model": "test-model", "values": [0.99, 0.05, 0, 0]}"#.write(
            toFile: directory.path + "/print.json", atomically: true, encoding: .utf8)
        let output = try await CLI.run([
            "query", "--print-file", directory.path + "/print.json", "--catalog", directory.path + "/catalog.jsonl",
            "--routes", CLI.routes,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(separator: "\n")
        #expect(rows.count >= 2)
        #expect(rows[1].contains("Near") && rows[1].contains("image"))
    }

    @Test("capture prints the filled-in search: chips, facets with counts, page 1, total hits")
    func capture() async throws {
        let arguments = ["capture", "--labels", "jazz,vienna", "--page-size", "4"] + Self.inProcess
        let text = try await Snapshot.run("capture", arguments)
        #expect(text.status == 0)
        #expect(text.stdout.contains("[x] jazz  [x] vienna"))
        let json = try await Snapshot.run("capture-json", arguments + ["--json"])
        #expect(json.status == 0)
    }

    @Test("search refines a session on a real server: types, ranges, sort, chips off, the next page")
    func searchAgainstServer() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let remote = ["--server", server.address]
        let capture = try await CLI.run(["capture", "--labels", "jazz", "--page-size", "3", "--json"] + remote)
        #expect(capture.status == 0, "\(capture.stderr)")
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(capture.stdout.utf8)) as? [String: Any])
        let session = try #require(state["session_id"] as? String)
        #expect(session.count == 32)

        let refine = ["--type", "album", "--range", "year=1960..1999", "--sort", "year:desc", "--page-size", "2"]
        let first = try await Snapshot.run("search", ["search", session] + refine + remote)
        #expect(first.status == 0)
        let firstJSON = try await Snapshot.run("search-json", ["search", session] + refine + remote + ["--json"])
        let firstState = try #require(
            try JSONSerialization.jsonObject(with: Data(firstJSON.stdout.utf8)) as? [String: Any])
        let token = try #require(firstState["next_page_token"] as? String)
        #expect(!token.isEmpty)
        let next = try await Snapshot.run(
            "search-next-page", ["search", session] + refine + ["--page-token", token] + remote)
        #expect(next.status == 0)
        // The next page continues the numbering of the same ranking: no title repeats.
        let titles = { (output: String) in
            output.split(separator: "\n").filter { $0.contains("music://album/") }.map(String.init)
        }
        #expect(Set(titles(first.stdout)).isDisjoint(with: titles(next.stdout)))

        let chips = try await Snapshot.run(
            "search-chip-off",
            ["search", session, "--chip-off", "jazz", "--text", "vienna", "--page-size", "3"] + remote)
        #expect(chips.status == 0)
        #expect(chips.stdout.contains("[ ] jazz"))

        // One attribute facet, the others named; --facet lists one of those too.
        let capped = try await CLI.run(["search", session, "--max-facets", "1", "--json"] + remote)
        let cappedState = try #require(
            try JSONSerialization.jsonObject(with: Data(capped.stdout.utf8)) as? [String: Any])
        let facets = try #require(cappedState["facets"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        let more = try #require(cappedState["more_facets"] as? [String])
        #expect(facets.count == 3 && facets.prefix(2) == ["type", "category"])
        let opened = try #require(more.first)
        let text = try await CLI.run(["search", session, "--max-facets", "1"] + remote)
        #expect(text.stdout.contains("more facets") && text.stdout.contains(opened))
        let withOpened = try await CLI.run(
            ["search", session, "--max-facets", "2", "--facet", opened, "--json"] + remote)
        let openedState = try #require(
            try JSONSerialization.jsonObject(with: Data(withOpened.stdout.utf8)) as? [String: Any])
        let openedNames = try #require(openedState["facets"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(Set(openedNames) == Set(facets + [opened]))
        let zero = try await CLI.run(["search", session, "--max-facets", "0"] + remote)
        #expect(zero.status == 2 && zero.stderr.contains("--max-facets must be a whole number ≥ 1"))
    }

    @Test("search of an unknown session exits 1 with the server's message")
    func searchUnknownSession() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let output = try await CLI.run(["search", "0123456789abcdef0123456789abcdef", "--server", server.address])
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("error: "))
        #expect(output.stderr.contains("0123456789abcdef0123456789abcdef"))
    }

    @Test("query, open and link against a server answer what the in-process commands answer")
    func serverMatchesInProcess() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let remote = ["--server", server.address]
        for arguments in [
            ["query", "--labels", "jazz,piano", "--limit", "6", "--json"],
            ["capture", "--labels", "jazz", "--page-size", "3", "--json"],
        ] {
            let local = try await CLI.run(arguments + Self.inProcess)
            let served = try await CLI.run(arguments + remote)
            #expect(served.status == local.status)
            #expect(Snapshot.mask(served.stdout) == Snapshot.mask(local.stdout), "\(arguments)")
        }
        for arguments in [["open", "music://album/blue-river"], ["open", "concert:1042"], ["link", "artist:x-y"]] {
            let local = try await CLI.run(arguments + ["--routes", CLI.routes, "--json"])
            let served = try await CLI.run(arguments + remote + ["--json"])
            #expect(served.status == 0 && local.status == 0)
            #expect(served.stdout == local.stdout, "\(arguments)")
        }
        let refused = try await CLI.run(["open", "https://evil.test/"] + remote)
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: refused https://evil.test/: host \"evil.test\" is not an allowed universal-link host\n")
    }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "vi-continue-cli-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
