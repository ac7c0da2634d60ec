import Foundation
import ServeTestSupport

/// The built `vi-continue` executable, and a `vi-continue serve` run of it on an ephemeral port.
enum BuiltProgram {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The package root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var executable: String { repositoryRoot.appendingPathComponent(".build/debug/vi-continue").path }

    /// Runs the executable to completion with `arguments`.
    ///
    /// - Returns: Its exit status, standard output and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes before waiting, so a full pipe cannot stall the child.
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)
        )
    }

    /// A running `vi-continue serve` on 127.0.0.1 with an ephemeral port and sessions in memory.
    final class Server: @unchecked Sendable {
        let process = Process()
        private let stderr = Pipe()
        let port: Int

        init() throws {
            process.executableURL = URL(fileURLWithPath: BuiltProgram.executable)
            process.arguments = ["serve", "--port", "0", "--unix-socket", "none", "--store", "memory"]
            process.currentDirectoryURL = BuiltProgram.repositoryRoot
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            port = try readServingPort(from: stderr, of: process)
        }

        /// Sends SIGTERM and waits for the exit.
        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
