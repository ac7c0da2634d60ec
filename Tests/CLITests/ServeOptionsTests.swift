import Foundation
import ServeTestSupport
import Testing

/// `serve`'s options are declared once (Sources/vi-continue/Serve/ServeOptions.swift): help states each
/// default from the declaration, a value that does not fit names its flag or variable, and the
/// README's Configuration table states the same defaults.
@Suite(.serialized) struct ServeOptionsTests {
    /// `--flag` → the default the README's Configuration table gives it, where that is one
    /// literal value (`50051`, `sqlite`), not words.
    static func readmeDefaults() throws -> [String: String] {
        let readme = try String(
            contentsOf: CLI.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Configuration").dropFirst().first)
        var defaults = [String: String]()
        for line in section.split(separator: "\n") where line.hasPrefix("| `--") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[1].hasPrefix("`"), cells[1].hasSuffix("`"),
                cells[1].filter({ $0 == "`" }).count == 2
            else { continue }
            let flag = String(cells[0].dropFirst().prefix { $0 != " " && $0 != "`" })
            defaults[flag] = String(cells[1].dropFirst().dropLast())
        }
        return defaults
    }

    @Test func helpStatesTheDefaultsTheReadmeStates() async throws {
        let help = try await CLI.run(["serve", "--help"])
        #expect(help.status == 0)
        let defaults = try Self.readmeDefaults()
        #expect(defaults.count >= 12, "\(defaults)")
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        for (flag, value) in defaults {
            // The flag's row, and its help on the same or the next line.
            guard let row = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(flag + " ") })
            else {
                Issue.record("serve --help has no \(flag)")
                continue
            }
            let text = lines[row...].prefix(2).joined(separator: " ")
            #expect(text.contains("(default \(value))"), "\(flag): README says \(value); help says \(text)")
        }
    }

    @Test(
        "a value that does not fit names its flag or variable and what it must be, exit 2",
        arguments: [
            (["--port", "70000"], [:], "error: --port must be a whole number from 0 to 65535 (got '70000')"),
            (["--today", "2026-02-30"], [:], "error: --today must be a date written YYYY-MM-DD (got '2026-02-30')"),
            ([], ["VI_CONTINUE_PORT": "x"], "error: VI_CONTINUE_PORT must be a whole number from 0 to 65535 (got 'x')"),
            (
                ["--port", "0", "--session-ttl", "0"], [:],
                "error: --session-ttl must be a number of seconds from 1 to 1000000000 (got '0')"
            ),
            (
                ["--port", "0"], ["VI_CONTINUE_MAX_SESSIONS": "0"],
                "error: VI_CONTINUE_MAX_SESSIONS must be a whole number from 1 to 100000000 (got '0')"
            ),
        ] as [([String], [String: String], String)])
    func misfits(arguments: [String], environment: [String: String], message: String) async throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.currentDirectoryURL = CLI.repositoryRoot
        // Every case fails before the server binds (the port cases have no other port to fall to).
        process.arguments = ["serve", "--unix-socket", "none", "--store", "memory"] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("VI_CONTINUE_") }
            .merging(environment) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = await readToEnd(stderr)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(String(decoding: text, as: UTF8.self).contains(message), "\(String(decoding: text, as: UTF8.self))")
    }
}
