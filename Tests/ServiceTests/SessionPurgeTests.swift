import ContinueService
import Foundation
import SearchAPI
import Testing
import WireProtocol

/// `serve` deletes expired sessions while it runs: under a steady Capture load with a short time
/// to live, neither the SQLite file nor the process's memory keeps growing.
extension ServeProcessTests {
    @Suite struct SessionPurgeTests {
        /// Captures from 4 clients for `seconds`; returns how many were acknowledged.
        static func captureLoad(port: Int, seconds: Double) async -> Int {
            await withTaskGroup(of: Int.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        let client = ServiceClient(target: .tcp(host: "127.0.0.1", port: port))
                        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
                        var done = 0
                        while ContinuousClock.now < deadline {
                            let request = CaptureRequest(
                                descriptor: SearchAPI.Descriptor(
                                    labels: [
                                        SearchAPI.Label(
                                            text: ["rock", "jazz", "live"][(worker + done) % 3], confidence: 0.9)
                                    ],
                                    source: .camera),
                                pageSize: 5)
                            guard (try? await client.capture(request)) != nil else { break }
                            done += 1
                        }
                        await client.close()
                        return done
                    }
                }
                return await group.reduce(0, +)
            }
        }

        static func fileSize(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }

        @Test("SQLite store: the database file stays flat under a Capture load with a 1 s time to live")
        func sqliteFileStaysFlat() async throws {
            let stateDirectory =
                NSTemporaryDirectory() + "vi-continue-purge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            let server = try ServerProcess([
                "--store", "sqlite", "--state-dir", stateDirectory, "--session-ttl", "1", "--purge-interval", "0.2",
                "--log-level", "warn",
            ])
            let database = stateDirectory + "/sessions.sqlite"
            var sizes = [Int]()
            var walSizes = [Int]()
            var captures = [Int]()
            for _ in 0..<4 {
                captures.append(await Self.captureLoad(port: server.port, seconds: 2))
                sizes.append(Self.fileSize(database))
                walSizes.append(Self.fileSize(database + "-wal"))
            }
            // Each session row is about a kilobyte: without the purge the file would grow with
            // every phase by about as many kilobytes as captures were made. (The WAL is copied
            // into it every 256 sessions; the WAL itself grows until it starts over, at most a
            // few thousand pages: bounded, not flat, so it is checked against its bound.)
            let grownAfterWarmUp = sizes[3] - sizes[1]
            print("purge (sqlite): captures per phase \(captures), database bytes \(sizes), WAL bytes \(walSizes)")
            #expect(captures.allSatisfy { $0 > 100 })
            #expect(grownAfterWarmUp < max(captures[2] + captures[3], 1) * 200, "grew \(grownAfterWarmUp) bytes")
            #expect(walSizes.allSatisfy { $0 < 32 << 20 }, "WAL bytes \(walSizes)")
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }

        @Test("memory store: RSS stays flat under a Capture load with a 1 s time to live, and the cap holds")
        func memoryStaysFlat() async throws {
            let server = try ServerProcess([
                "--store", "memory", "--session-ttl", "1", "--purge-interval", "0.2", "--max-sessions", "2000",
                "--log-level", "warn",
                // The evaluation cache is bounded too, but fills over several phases at its default budget; at
                // 1 MiB it is full in the first, so what grows after it is the sessions alone.
                "--evaluation-cache", "1",
            ])
            var resident = [Int]()
            var captures = [Int]()
            for _ in 0..<4 {
                captures.append(await Self.captureLoad(port: server.port, seconds: 2))
                resident.append(server.residentBytes() ?? 0)
            }
            print("purge (memory): captures per phase \(captures), RSS bytes \(resident)")
            #expect(captures.allSatisfy { $0 > 100 })
            // Sessions cost a few hundred bytes each; allow the allocator 2 MiB of drift.
            #expect(resident[3] - resident[1] < 2 << 20, "RSS grew by \(resident[3] - resident[1]) bytes")
            server.send(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }
}
