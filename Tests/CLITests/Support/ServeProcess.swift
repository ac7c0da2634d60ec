import Foundation

/// A real `vi-continue serve` on an ephemeral port, with the test catalog and route table and
/// in-memory sessions; stopped by SIGTERM.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let stderr = Pipe()
    /// `127.0.0.1:PORT`, for `--server`.
    let address: String

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

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
        // serve logs "vi-continue: serving on 127.0.0.1:PORT" on stderr once it listens.
        var text = ""
        while !text.contains("serving on") {
            var line: [UInt8] = []
            while let byte = stderr.fileHandleForReading.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") {
                line.append(byte)
            }
            if line.isEmpty, !process.isRunning { break }
            text = String(decoding: line, as: UTF8.self)
        }
        guard let range = text.range(of: "127.0.0.1:"), let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw StartFailure(description: "serve did not start: \(text)")
        }
        address = "127.0.0.1:\(port)"
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
