import Foundation
import ServeTestSupport

/// Runs the grpcio peers of `Tests/interop/` with the project's venv (made by `scripts/setup`).
enum PythonPeer {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var python: URL { repositoryRoot.appendingPathComponent(".venv/bin/python") }

    static func script(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/interop/\(name)").path
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a peer script to completion.
    static func run(_ script: String, _ arguments: [String]) async throws -> Output {
        let process = Process()
        process.executableURL = python
        process.arguments = [Self.script(script)] + arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs, so a chatty peer never blocks on a full pipe.
        // The blocking reads run on threads of their own: on the cooperative pool they would
        // starve the in-process server the peer is talking to.
        async let out = readToEnd(stdout)
        async let err = readToEnd(stderr)
        let (outData, errData) = await (out, err)
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A long-running peer server; stopped by closing its stdin.
    final class Server: @unchecked Sendable {
        let process = Process()
        let stdin = Pipe()
        let port: Int

        init(_ script: String) throws {
            process.executableURL = PythonPeer.python
            process.arguments = [PythonPeer.script(script), "0"]
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardInput = stdin
            try process.run()
            // The first line is "listening PORT".
            var line: [UInt8] = []
            let handle = stdout.fileHandleForReading
            while true {
                let byte = handle.readData(ofLength: 1)
                guard let first = byte.first else { break }
                if first == UInt8(ascii: "\n") { break }
                line.append(first)
            }
            let words = String(decoding: line, as: UTF8.self).split(separator: " ")
            guard words.count == 2, words[0] == "listening", let port = Int(words[1]) else {
                process.terminate()
                throw PeerError(message: "the peer server did not start: \(String(decoding: line, as: UTF8.self))")
            }
            self.port = port
        }

        func stop() {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    struct PeerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
