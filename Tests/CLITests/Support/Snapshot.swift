import Foundation
import Testing

/// Snapshot files of command outputs under `Tests/CLITests/Snapshots/`, in the manner of
/// swift-argument-parser's `AssertHelp`: compared byte for byte, re-recorded when the
/// environment has `VI_CONTINUE_RECORD_SNAPSHOTS=1`.
enum Snapshot {
    static var directory: URL { CLI.repositoryRoot.appendingPathComponent("Tests/CLITests/Snapshots") }

    static var recording: Bool { ProcessInfo.processInfo.environment["VI_CONTINUE_RECORD_SNAPSHOTS"] == "1" }

    /// The text a snapshot holds for one run: the command line, the exit status, and both streams,
    /// with what changes from run to run (session ids, page tokens, expiry times, server ports)
    /// masked.
    static func render(_ arguments: [String], _ output: CLI.Output) -> String {
        let command = (["vi-continue"] + arguments).map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }
        return mask(
            """
            $ \(command.joined(separator: " "))
            exit: \(output.status)
            --- stdout
            \(output.stdout)--- stderr
            \(output.stderr)
            """)
    }

    /// Replaces the parts of an output that differ between runs by stable placeholders.
    static func mask(_ text: String) -> String {
        var text = text
        let rules: [(String, String)] = [
            (#"[0-9a-f]{32}"#, "<session>"),
            (#"("next_page_token":")[^"]+""#, "$1<token>\""),
            (#"(next page:\s+)(?!\(last page\))\S+"#, "$1<token>"),
            (#"(--page-token )\S+"#, "$1<token>"),
            (#"("expires_at_unix_ms":)\d+"#, "$1<expires>"),
            (#"127\.0\.0\.1:\d+"#, "127.0.0.1:<port>"),
            (#"("catalog_version":)\d+"#, "$1<version>"),
            (#"("took_ms":)[0-9.e+-]+"#, "$1<ms>"),
            (#"(catalog version:\s+)\d+"#, "$1<version>"),
        ]
        for (pattern, template) in rules {
            let expression = try! NSRegularExpression(pattern: pattern)
            text = expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        }
        return text
    }

    /// Checks `arguments`' output against the snapshot `name`, or records it.
    static func check(
        _ name: String, _ arguments: [String], _ output: CLI.Output, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let text = render(arguments, output)
        let file = directory.appendingPathComponent(name + ".txt")
        if recording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no snapshot \(name).txt; record it with VI_CONTINUE_RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation
            )
            return
        }
        #expect(text == expected, "snapshot \(name).txt differs", sourceLocation: sourceLocation)
    }

    /// Runs `vi-continue` and checks its output against the snapshot `name`; `environment` is
    /// not part of the snapshot (the write token's file is a temporary path).
    @discardableResult
    static func run(
        _ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CLI.Output {
        let output = try await CLI.run(arguments, stdin: stdin, environment: environment)
        try check(name, arguments, output, sourceLocation: sourceLocation)
        return output
    }
}
