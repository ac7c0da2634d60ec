import Foundation
import ServeTestSupport

/// Runs the built `vi-continue` executable (`.build/debug/vi-continue`, built by
/// `swift build --build-tests`) as a user would, from the repository root.
///
/// The suites are `.serialized` (their tests run one at a time), so a full test run on a
/// small machine is not flooded with dozens of concurrent processes starving timing-sensitive
/// suites elsewhere.
enum CLI {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var executable: URL { repositoryRoot.appendingPathComponent(".build/debug/vi-continue") }

    /// Fixture paths as the commands are given them: relative to the repository root, so that
    /// outputs naming them are the same on every machine.
    static let catalog = "Tests/CLITests/Fixtures/catalog.jsonl"
    static let routes = "Tests/CLITests/Fixtures/routes.json"

    /// What one run printed and how it exited.
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `vi-continue` with `arguments`, feeding `stdin`, and waits for it to exit.
    ///
    /// The environment is the test's, minus every `VI_CONTINUE_*` variable, so a developer's
    /// settings cannot change what is checked, and with `XDG_RUNTIME_DIR` naming an empty place,
    /// so a `serve` running on this machine is never taken for the catalog commands' local
    /// server, and with the day pinned (``today``) so answers listing upcoming concerts do not
    /// change with the date the tests run; then `environment` is added.
    /// The day every command and server of the tests takes for today.
    static let today = pinnedToday

    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]
    ) async throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("VI_CONTINUE_") }
        variables["XDG_RUNTIME_DIR"] = "/nonexistent/vi-continue-cli-tests"
        variables["VI_CONTINUE_TODAY"] = today
        process.environment = variables.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a chatty child never blocks on a full pipe. The
        // blocking reads run on threads of their own: a detached task would hold a thread of the
        // cooperative pool (two on two cores) for as long as the child runs, and the in-process
        // servers of tests running beside this one would wait for it.
        async let out = readToEnd(output)
        async let err = readToEnd(error)
        let (stdoutData, stderrData) = await (out, err)
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
