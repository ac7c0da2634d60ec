import Foundation
import ServeTestSupport

/// A real `vi-continue serve` on an ephemeral port, with the test catalog and route table and
/// in-memory sessions; stopped by SIGTERM. It takes catalog writes over TCP with the token in
/// ``tokenFile``.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let stderr = Pipe()
    /// `127.0.0.1:PORT`, for `--server`.
    let address: String
    /// A directory of this server's own: its write token file and its Unix socket.
    let directory: URL
    /// The file holding the server's write token, for `--token-file`.
    let tokenFile: String
    /// The Unix socket, when the server was asked to listen on one.
    let socketPath: String?
    /// What serve wrote to stderr up to "serving on": the start-up summary and warnings.
    let startLines: [String]

    /// The variable that gives catalog commands this server's token without a flag on the line.
    var tokenEnvironment: [String: String] { ["VI_CONTINUE_TOKEN_FILE": tokenFile] }

    init(catalog: String = CLI.catalog, routes: String = CLI.routes, unixSocket: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vi-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        tokenFile = directory.appendingPathComponent("token").path
        try "cli-test-token-\(UUID().uuidString)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        socketPath = unixSocket ? directory.appendingPathComponent("serve.sock").path : nil
        process.executableURL = CLI.executable
        process.currentDirectoryURL = CLI.repositoryRoot
        process.arguments = [
            "serve", "--port", "0", "--unix-socket", socketPath ?? "none", "--store", "memory", "--catalog", catalog,
            "--routes", routes, "--write-token-file", tokenFile,
        ]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("VI_CONTINUE_") }
            .merging(["VI_CONTINUE_TODAY": CLI.today]) { $1 }
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var lines = [String]()
        address = "127.0.0.1:\(try readServingPort(from: stderr, of: process, lines: &lines))"
        startLines = lines
        // Keep draining the per-call log lines so the server never blocks on a full pipe.
        let handle = stderr.fileHandleForReading
        Thread.detachNewThread {
            while !handle.availableData.isEmpty {}
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    @discardableResult
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { stop() }
        try? FileManager.default.removeItem(at: directory)
    }
}
