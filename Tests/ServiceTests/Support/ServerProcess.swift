import Foundation
import ServeTestSupport
import Synchronization

/// A real `vi-continue serve` process on an ephemeral port, with its standard error captured
/// line by line (the call log and the startup lines) for as long as it runs.
final class ServerProcess: @unchecked Sendable {
    static var executable: URL { PythonPeer.repositoryRoot.appendingPathComponent(".build/debug/vi-continue") }

    let process = Process()
    let port: Int
    private let output = CollectedLines()

    /// Starts `vi-continue serve --port 0 ARGUMENTS` and waits until it listens.
    ///
    /// - Parameters:
    ///   - arguments: More `serve` options; `--store memory` unless a `--store` is given,
    ///     `--unix-socket none` unless a `--unix-socket` is.
    ///   - environment: Variables added to the test's own environment (`VI_CONTINUE_*`).
    ///   - softOpenFileLimit: Starts the server with this soft RLIMIT_NOFILE (through `sh -c
    ///     'ulimit -Sn N; exec ...'`, so the process is still the server itself).
    init(_ arguments: [String] = [], environment: [String: String] = [:], softOpenFileLimit: Int? = nil) throws {
        // The day is pinned so that answers listing upcoming concerts do not change with the date.
        process.environment = ProcessInfo.processInfo.environment.merging(["VI_CONTINUE_TODAY": pinnedToday]) { $1 }
            .merging(environment) { $1 }
        var all = ["serve", "--port", "0"]
        if !arguments.contains("--unix-socket") { all += ["--unix-socket", "none"] }
        if !arguments.contains("--store") { all += ["--store", "memory"] }
        all += arguments
        if let softOpenFileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit -Sn \(softOpenFileLimit) && exec \"$0\" \"$@\"", Self.executable.path] + all
        } else {
            process.executableURL = Self.executable
            process.arguments = all
        }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A thread of its own drains standard error: a full pipe would block the server's logging.
        let handle = stderr.fileHandleForReading
        let output = self.output
        Thread.detachNewThread {
            var pending: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(contentsOf: chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    output.append(line)
                }
            }
            output.ended()
        }
        // A debug build loading the demo index while the rest of the suite runs in parallel can
        // take seconds; the wait is long so that only a server that is stuck or gone fails here.
        let startedWaiting = ContinuousClock.now
        let waitSeconds = 120
        let timedOut = output.started.wait(timeout: .now() + .seconds(waitSeconds)) == .timedOut
        let text = output.all.first { $0.contains("serving on") } ?? ""
        // "serving on HOST:PORT[ and unix:PATH]": the port follows the first address's last colon.
        let address = text.range(of: "serving on ").map { text[$0.upperBound...].prefix { $0 != " " } } ?? ""
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            // Say how it failed: still running (stuck) or ended, and with which status or signal.
            let how: String
            if process.isRunning {
                how = "still running after \(waitSeconds) s"
                process.terminate()
            } else {
                how = howItEnded(process)
            }
            let waited = ContinuousClock.now - startedWaiting
            throw PythonPeer.PeerError(
                message: "serve did not start (\(how); waited \(waited), timed out: \(timedOut)); stderr:\n"
                    + output.all.joined(separator: "\n"))
        }
        self.port = port
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Runs `vi-continue serve --port 0 --unix-socket none ARGUMENTS` expecting it to stop at
    /// start (a bad option), and returns its exit status and standard error.
    static func failedStart(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--unix-socket", "none"] + arguments
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    var pid: Int32 { process.processIdentifier }

    /// Everything the server wrote to standard error so far, one element per line.
    var stderrLines: [String] { output.all }

    /// The lines of the call log (`vi-continue: call ...`).
    var callLines: [String] { stderrLines.filter { $0.hasPrefix("vi-continue: call ") } }

    /// The server's resident set size in bytes (`VmRSS` of `/proc/PID/status`).
    func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kibibytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kibibytes * 1024
    }

    /// The soft and hard limits on open files (`Max open files` of `/proc/PID/limits`).
    func openFileLimits() -> (soft: Int, hard: Int)? {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
            let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// Sends a signal.
    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the process to exit, polling so no thread of the cooperative pool blocks.
    ///
    /// - Returns: The exit status, or nil if it still runs after `seconds`.
    func waitForExit(seconds: Double = 30) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    /// Waits until a line of standard error satisfies `predicate`.
    func waitForLine(seconds: Double = 30, where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let line = stderrLines.first(where: predicate) { return line }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// Lines read from a pipe by another thread; `started` is signalled at the "serving on" line or
/// at the end of the output.
private final class CollectedLines: Sendable {
    private let lines = Mutex<[String]>([])
    let started = DispatchSemaphore(value: 0)

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
        if line.contains("serving on") { started.signal() }
    }

    func ended() { started.signal() }
}
