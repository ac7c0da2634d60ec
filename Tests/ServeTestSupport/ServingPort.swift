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
/// terminated and the error quotes the last line read.
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
    while !text.contains("serving on") {
        var line: [UInt8] = []
        while let byte = stderr.fileHandleForReading.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        if line.isEmpty, !process.isRunning { break }
        text = String(decoding: line, as: UTF8.self)
        lines.append(text)
    }
    // "serving on HOST:PORT[ and unix:PATH]": the port follows the first address's last colon.
    let address = text.range(of: "serving on ").map { text[$0.upperBound...].prefix { $0 != " " } } ?? ""
    guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
        process.terminate()
        throw ServeStartFailure(description: "serve did not start: \(text)")
    }
    return port
}
