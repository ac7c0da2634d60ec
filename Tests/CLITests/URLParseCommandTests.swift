import Foundation
import Testing

/// `url parse`: one URL, and one per stdin line.
@Suite(.serialized) struct URLParseCommandTests {
    @Test("a URL parses into the WHATWG components, as fields and as JSON")
    func parse() async throws {
        let url = #"HTTPS://User@EXAMPLE.com:443/a/./b/../c%2Fd?q=1#frag"#
        #expect(try await Snapshot.run("url-parse", ["url", "parse", url]).status == 0)
        let json = try await Snapshot.run("url-parse-json", ["url", "parse", url, "--json"])
        #expect(json.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String])
        #expect(object["hostname"] == "example.com")
        #expect(object["pathname"] == "/a/c%2Fd")
        #expect(
            Set(object.keys)
                == [
                    "href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search",
                    "hash",
                ])
    }

    @Test("an invalid URL prints {input, error} and exits 1")
    func invalid() async throws {
        let output = try await Snapshot.run("url-parse-invalid-json", ["url", "parse", "http://[::1", "--json"])
        #expect(output.status == 1)
        #expect(output.stdout.hasPrefix(#"{"input":"http://[::1","error":"#))
        #expect(try await Snapshot.run("url-parse-invalid", ["url", "parse", "no scheme"]).status == 1)
    }

    @Test("- reads one URL per line and answers each, never stopping at a bad one, exit 0")
    func stdin() async throws {
        let input = "https://a.test/x\nhttp://[::1\nmusic://album/blue-river?tab=reviews\n\nnot a url\n"
        let output = try await Snapshot.run("url-parse-stdin-json", ["url", "parse", "-", "--json"], stdin: input)
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5)
        #expect(lines.filter { $0.hasPrefix(#"{"input":"#) }.count == 3)
        #expect(try await Snapshot.run("url-parse-stdin", ["url", "parse", "-"], stdin: input).status == 0)
    }
}
