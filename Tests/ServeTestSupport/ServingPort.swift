public import Foundation

/// `vi-continue serve` ended, or never said where it listens, before it was ready.
public struct ServeStartFailure: Error, CustomStringConvertible {
    public var description: String
}

/// Reads a started `vi-continue serve`'s stderr up to its "vi-continue: serving on HOST:PORT…"
/// line and returns PORT (the tests start it on port 0, so only this line tells the port).
///
/// Reads a byte at a time so that nothing after that line is consumed: the caller may go on
/// reading the pipe. When the process ends first or the line names no port, the process is
/// terminated and the error quotes every line read and how the process ended.
public func readServingPort(from stderr: Pipe, of process: Process) throws(ServeStartFailure) -> Int {
    var lines = [String]()
    return try readServingPort(from: stderr, of: process, lines: &lines)
}

/// ``readServingPort(from:of:)`` that also hands back every line read up to it (the start-up
/// summary and warnings).
public func readServingPort(
    from stderr: Pipe, of process: Process, lines: inout [String]
) throws(ServeStartFailure) -> Int {
    var text = ""
    var ended = false
    while !text.contains("serving on"), !ended {
        var line: [UInt8] = []
        while true {
            // No byte is the end of the pipe: the process closed stderr, so it has ended (or
            // will before it is reaped); the lines before the end are what it said.
            guard let byte = stderr.fileHandleForReading.readData(ofLength: 1).first else {
                ended = true
                break
            }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        if ended, line.isEmpty { break }
        text = String(decoding: line, as: UTF8.self)
        lines.append(text)
    }
    // "serving on HOST:PORT[ and unix:PATH]": the port follows the first address's last colon.
    let address = text.range(of: "serving on ").map { text[$0.upperBound...].prefix { $0 != " " } } ?? ""
    guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
        // Say how it failed: ended (with which status or signal) or running with no port.
        var how = "still running"
        if !ended {
            process.terminate()
        } else {
            how = howItEnded(process)
        }
        throw ServeStartFailure(
            description: "serve did not start (\(how)); stderr:\n" + lines.joined(separator: "\n"))
    }
    return port
}

/// "ended with exit status N" or "ended with signal N", once `process` has ended (waits for it).
public func howItEnded(_ process: Process) -> String {
    process.waitUntilExit()
    let reason = process.terminationReason == .uncaughtSignal ? "signal" : "exit status"
    return "ended with \(reason) \(process.terminationStatus)"
}
