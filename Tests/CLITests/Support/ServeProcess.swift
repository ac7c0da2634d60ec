import Foundation
import ServeTestSupport

/// A real `vi-continue serve` on an ephemeral port, with the test catalog and route table and
/// in-memory sessions; stopped by SIGTERM.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let stderr = Pipe()
    /// `127.0.0.1:PORT`, for `--server`.
    let address: String

    init(catalog: String = CLI.catalog, routes: String = CLI.routes) throws {
        process.executableURL = CLI.executable
        process.currentDirectoryURL = CLI.repositoryRoot
        process.arguments = [
            "serve", "--port", "0", "--unix-socket", "none", "--store", "memory", "--catalog", catalog, "--routes",
            routes,
        ]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("VI_CONTINUE_") }
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        address = "127.0.0.1:\(try readServingPort(from: stderr, of: process))"
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
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { stop() }
    }
}
