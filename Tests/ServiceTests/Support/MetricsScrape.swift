import Foundation
import ServeTestSupport

/// `GET /metrics` of a running `serve`, fetched by curl over HTTP/2 (prior knowledge), read as
/// Prometheus text.
struct MetricsScrape {
    let text: String

    /// Fetches the metrics; curl runs off the cooperative pool (see ``offThePool(_:)``).
    static func fetch(port: Int) async throws -> MetricsScrape {
        let (status, output) = await offThePool { () -> (Int32, Data) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "-s", "--fail", "--max-time", "10", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/metrics",
            ]
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                return (-1, Data())
            }
            let data = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, data)
        }
        guard status == 0 else { throw PythonPeer.PeerError(message: "curl /metrics exited \(status)") }
        return MetricsScrape(text: String(decoding: output, as: UTF8.self))
    }

    /// The value of the series written exactly `series` (name and labels), if it is there.
    func value(_ series: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Int(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
