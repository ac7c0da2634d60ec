public import Foundation

/// `vi-continue serve` ended, or never said where it listens, before it was ready.
public struct ServeStartFailure: Error, CustomStringConvertible {
    public var description: String
}

/// Reads a started `vi-continue serve`'s stderr up to its "vi-continue: serving on 127.0.0.1:PORT…"
/// line and returns PORT (the tests start it on port 0, so only this line tells the port).
///
/// Reads a byte at a time so that nothing after that line is consumed: the caller may go on
/// reading the pipe. When the process ends first or the line names no port, the process is
/// terminated and the error quotes the last line read.
public func readServingPort(from stderr: Pipe, of process: Process) throws(ServeStartFailure) -> Int {
    var text = ""
    while !text.contains("serving on") {
        var line: [UInt8] = []
        while let byte = stderr.fileHandleForReading.readData(ofLength: 1).first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        if line.isEmpty, !process.isRunning { break }
        text = String(decoding: line, as: UTF8.self)
    }
    guard let range = text.range(of: "127.0.0.1:"), let port = Int(text[range.upperBound...].prefix(while: \.isNumber))
    else {
        process.terminate()
        throw ServeStartFailure(description: "serve did not start: \(text)")
    }
    return port
}
