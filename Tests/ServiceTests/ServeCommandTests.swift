import ContinueService
import Foundation
import SearchAPI
import ServeTestSupport
import Testing
import WireProtocol

/// The real `vi-continue serve` process: started on ephemeral addresses, reached by a stock
/// grpcio client, and stopped by SIGTERM.
@Suite struct ServeCommandTests {
    static var executable: URL { PythonPeer.repositoryRoot.appendingPathComponent(".build/debug/vi-continue") }

    /// A running `vi-continue serve`.
    final class ServeProcess: @unchecked Sendable {
        let process = Process()
        let stderr = Pipe()
        let port: Int
        let socketPath: String

        /// Starts `serve` on a free port and a fresh socket, with in-memory sessions unless
        /// `arguments` say otherwise (a later flag wins).
        init(arguments: [String] = []) throws {
            socketPath =
                NSTemporaryDirectory() + "vi-continue-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            process.executableURL = ServeCommandTests.executable
            process.arguments = ["serve", "--port", "0", "--unix-socket", socketPath, "--store", "memory"] + arguments
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            port = try readServingPort(from: stderr, of: process)
        }

        /// Sends SIGTERM and waits for the exit status.
        func terminate() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    @Test("serve answers a grpcio health check on TCP and our client on the Unix socket, and exits 0 on SIGTERM")
    func serveAndStop() async throws {
        let serve = try ServeProcess()
        let output = try await PythonPeer.run("health_check.py", ["127.0.0.1:\(serve.port)"])
        #expect(output.stdout == "SERVING\n", "\(output.stderr)")
        let client = ServiceClient(target: .unix(path: serve.socketPath))
        let status = try await client.checkHealth().status
        #expect(status == .serving)
        await client.close()
        #expect(serve.terminate() == 0)
        #expect(!FileManager.default.fileExists(atPath: serve.socketPath), "the socket file is left behind")
    }

    @Test("SIGTERM lets an in-flight call finish before the process exits 0")
    func sigtermDrainsInFlightCalls() async throws {
        let serve = try ServeProcess()
        let client = GRPCClient(target: .tcp(host: "127.0.0.1", port: serve.port))
        let stream = try await client.serverStreaming(
            path: MethodPaths.Health.watch, request: Health.CheckRequest().serializedBytes())
        var iterator = stream.makeAsyncIterator()
        let firstBytes = try await iterator.next()
        let first = try Health.CheckResponse(serializedBytes: #require(firstBytes))
        #expect(first.status == .serving)
        // Watch is the one call that would run forever; shutdown ends it with NOT_SERVING and OK.
        serve.process.terminate()
        let lastBytes = try await iterator.next()
        let last = try Health.CheckResponse(serializedBytes: #require(lastBytes))
        #expect(last.status == .notServing)
        #expect(try await iterator.next() == nil)
        serve.process.waitUntilExit()
        #expect(serve.process.terminationStatus == 0)
        await client.close()
    }

    @Test("a serve that ends before it listens is reported with its exit status and everything it said")
    func aFailedStartSaysHowItEnded() throws {
        // A catalog that does not exist: serve says why on stderr and exits 2 before listening.
        let missing = NSTemporaryDirectory() + "vi-continue-no-such-catalog-\(getpid()).jsonl"
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "serve", "--port", "0", "--unix-socket", "none", "--store", "memory", "--catalog", missing,
        ]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        do {
            let port = try readServingPort(from: stderr, of: process)
            Issue.record("serve listened on \(port) with a missing catalog")
        } catch {
            #expect(error.description.contains("ended with exit status 2"), "\(error)")
            #expect(error.description.contains(missing), "\(error)")
        }
        #expect(!process.isRunning)
    }
}
