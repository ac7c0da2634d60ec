import Foundation
import Testing

/// `open`, `link`, `routes check` and `routes explain`, offline on the test route table, in
/// both output forms.
@Suite(.serialized) struct RouteCommandTests {
    static let routes = ["--routes", CLI.routes]

    @Test(
        "open prints the destination of app URLs, universal links and type:id targets",
        arguments: [
            ("open-app-url", ["music://album/blue-river?tab=credits"]),
            ("open-universal-link", ["https://music.example.com/concert/1042"]),
            ("open-entity", ["artist:the-neon-tides"]),
            ("open-fallback", ["music://nothing/here"]),
        ])
    func open(name: String, target: [String]) async throws {
        let text = try await Snapshot.run(name, ["open"] + target + Self.routes)
        #expect(text.status == 0)
        let json = try await Snapshot.run(name + "-json", ["open"] + target + Self.routes + ["--json"])
        #expect(json.status == 0)
        #expect(json.stdout.hasPrefix("{") && json.stdout.hasSuffix("}\n"))
    }

    @Test(
        "open refuses forbidden schemes, hosts off the allow-list, credentials and unknown types with exit 1",
        arguments: [
            ("open-refused-scheme", "javascript:alert(1)"),
            ("open-refused-host", "https://example.com\\@evil.test/"),
            ("open-refused-credentials", "https://user:pw@music.example.com/album/x"),
            ("open-refused-type", "planet:mars"),
        ])
    func openRefused(name: String, target: String) async throws {
        let output = try await Snapshot.run(name, ["open", target, "--json"] + Self.routes)
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("error: refused \(target): "))
        #expect(output.stdout.contains(#""refused":true"#))
    }

    @Test("link prints the app URL and the universal link")
    func link() async throws {
        #expect(try await Snapshot.run("link", ["link", "album:blue-river"] + Self.routes).status == 0)
        #expect(try await Snapshot.run("link-json", ["link", "concert:1042", "--json"] + Self.routes).status == 0)
    }

    @Test("link of a type without a route exits 1, of an id the route cannot hold exits 2")
    func linkFailures() async throws {
        #expect(try await Snapshot.run("link-unknown-type", ["link", "planet:mars"] + Self.routes).status == 1)
        #expect(try await Snapshot.run("link-invalid-id", ["link", "concert:next"] + Self.routes).status == 2)
    }

    @Test("routes check lists each entity type's route")
    func routesCheck() async throws {
        let arguments = ["routes", "check", "--catalog", CLI.catalog] + Self.routes
        #expect(try await Snapshot.run("routes-check", arguments).status == 0)
        #expect(try await Snapshot.run("routes-check-json", arguments + ["--json"]).status == 0)
    }

    @Test("routes check exits 1 naming the entity types without an open route")
    func routesCheckMissing() async throws {
        let arguments = [
            "routes", "check", "--catalog", CLI.catalog, "--routes",
            "Tests/CLITests/Fixtures/routes-missing-types.json",
        ]
        let text = try await Snapshot.run("routes-check-missing", arguments)
        #expect(text.status == 1)
        #expect(text.stderr.contains("playlist, track"))
        #expect(try await Snapshot.run("routes-check-missing-json", arguments + ["--json"]).status == 1)
    }

    @Test("serve says at start which types cannot be opened, and neither it nor the offline query shows them")
    func resultsThatCannotBeOpenedAreLeftOut() async throws {
        let missingRoutes = "Tests/CLITests/Fixtures/routes-missing-types.json"
        // A playlist, tracks and albums match these directly.
        let query = ["query", "--labels", "jazz essentials,shadows song,lost", "--limit", "20", "--json"]
        let routed = try await CLI.run(query + ["--catalog", CLI.catalog, "--routes", CLI.routes])
        #expect(routed.stdout.contains(#""type":"track""#) && routed.stdout.contains(#""type":"playlist""#))
        let offline = try await CLI.run(query + ["--catalog", CLI.catalog, "--routes", missingRoutes])
        let server = try ServeProcess(routes: missingRoutes)
        defer { server.stop() }
        #expect(
            server.startLines.contains {
                $0.contains("no open route for entity types playlist, track") && $0.contains("left out of results")
            }, "\(server.startLines)")
        let remote = try await CLI.run(query + ["--server", server.address])
        for answer in [offline, remote] {
            #expect(answer.status == 0, "\(answer.stderr)")
            #expect(answer.stdout.contains(#""type":"album""#))
            #expect(!answer.stdout.contains(#""type":"track""#) && !answer.stdout.contains(#""type":"playlist""#))
        }
    }

    @Test("routes check reports a conflict in the table with both routes and an example URL")
    func routesCheckConflict() async throws {
        let arguments = [
            "routes", "check", "--catalog", CLI.catalog, "--routes", "Tests/CLITests/Fixtures/routes-conflict.json",
        ]
        let output = try await Snapshot.run("routes-check-conflict", arguments + ["--json"])
        #expect(output.status == 1)
        #expect(output.stderr.contains(#""genre" (/genre/{name}) and "style" (/genre/{style}) conflict"#))
    }

    @Test("routes check works on the bundled demo catalog and table by default")
    func routesCheckDemo() async throws {
        let output = try await CLI.run(["routes", "check", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains(#""routes":"Examples/demo/routes.json""#))
        #expect(output.stdout.contains(#""ok":true"#))
    }

    @Test("routes explain shows the closest routes and why each failed")
    func routesExplain() async throws {
        let arguments = ["routes", "explain", "music://concert/next"] + Self.routes
        #expect(try await Snapshot.run("routes-explain", arguments).status == 1)
        #expect(try await Snapshot.run("routes-explain-json", arguments + ["--json", "--limit", "2"]).status == 1)
        let matched = try await Snapshot.run(
            "routes-explain-matched", ["routes", "explain", "music://album/blue-river/track/3"] + Self.routes)
        #expect(matched.status == 0)
    }

    @Test("routes check and explain with --server answer from the server's table and catalog, as offline")
    func againstAServer() async throws {
        let server = try ServeProcess()
        defer { server.stop() }
        for url in ["music://concert/next", "music://album/blue-river/track/3", "javascript:alert(1)"] {
            let offline = try await CLI.run(["routes", "explain", url, "--json", "--limit", "4"] + Self.routes)
            let remote = try await CLI.run([
                "routes", "explain", url, "--json", "--limit", "4", "--server", server.address,
            ])
            #expect(remote.status == offline.status, "\(url): \(remote.stderr)")
            #expect(remote.stdout == offline.stdout, "\(url)")
        }
        let offline = try await CLI.run(["routes", "check", "--catalog", CLI.catalog, "--json"] + Self.routes)
        let remote = try await CLI.run(["routes", "check", "--json", "--server", server.address])
        #expect(remote.status == offline.status && remote.status == 0, "\(remote.stderr)")
        let types = { (text: String) in text.components(separatedBy: #""types":"#).last ?? "" }
        #expect(types(remote.stdout) == types(offline.stdout))
        #expect(remote.stdout.hasPrefix(#"{"server":"127.0.0.1:"#))
        let text = try await CLI.run(["routes", "check", "--server", server.address])
        #expect(text.stdout.contains("catalog:  the server's ("), "\(text.stdout)")

        let mixed = try await CLI.run(["routes", "check", "--server", server.address, "--catalog", CLI.catalog])
        #expect(mixed.status == 2)
        #expect(mixed.stderr == "error: --server and --catalog exclude each other: the server checks its own\n")
        let unreachable = try await CLI.run(["routes", "explain", "music://x", "--server", "127.0.0.1:1"])
        #expect(unreachable.status == 3)
    }
}
