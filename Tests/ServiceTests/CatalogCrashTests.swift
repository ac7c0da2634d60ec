import ContinueService
import Foundation
import SearchAPI
import Synchronization
import Testing
import WireProtocol

@testable import SearchSession

/// A `vi-continue serve` on its embedded default (SQLite state) killed with SIGKILL in the middle
/// of catalog write batches, then restarted on the same state directory and catalog.
extension ServeProcessTests {
    @Suite struct CatalogCrashTests {
        static let batchSize = 10

        /// The batches a worker sent, and which of them the server acknowledged.
        final class Batches: Sendable {
            private let state = Mutex<(sent: [String], acknowledged: Set<String>)>(([], []))
            func sent(_ tag: String) { state.withLock { $0.sent.append(tag) } }
            func acknowledged(_ tag: String) { _ = state.withLock { $0.acknowledged.insert(tag) } }
            var all: (sent: [String], acknowledged: Set<String>) { state.withLock { $0 } }
        }

        /// A batch of entities sharing one tag, so a query for the tag counts how many arrived.
        static func batch(_ tag: String) -> UpsertEntitiesRequest {
            UpsertEntitiesRequest(
                entities: (0..<batchSize).map { k in
                    SearchAPI.Entity(type: "album", id: "\(tag)-\(k)", title: "Crash test \(k)", tags: [tag])
                })
        }

        static func count(_ tag: String, client: ServiceClient) async throws -> Int {
            let answer = try await client.query(
                QueryRequest(
                    descriptor: SearchAPI.Descriptor(labels: [SearchAPI.Label(text: tag, confidence: 1)]), limit: 50))
            return answer.results.filter { $0.entity?.id.hasPrefix(tag + "-") == true }.count
        }

        /// Four writers send batches over the Unix socket of a server started with `arguments`
        /// until `acknowledgedBeforeKill` are acknowledged, then the server is killed (SIGKILL).
        static func writeUntilKilled(
            _ arguments: [String], socket: String, acknowledgedBeforeKill: Int
        ) async throws -> (sent: [String], acknowledged: Set<String>) {
            let first = try ServerProcess(arguments)
            let batches = Batches()
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        let client = ServiceClient(target: .unix(path: socket))
                        var round = 0
                        while round < 10_000 {
                            let tag = "crashw\(worker)r\(round)"
                            batches.sent(tag)
                            guard (try? await client.upsertEntities(Self.batch(tag))) != nil else { break }
                            batches.acknowledged(tag)
                            round += 1
                        }
                        await client.close()
                    }
                }
                group.addTask {
                    let deadline = ContinuousClock.now + .seconds(60)
                    while batches.all.acknowledged.count < acknowledgedBeforeKill, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    first.send(SIGKILL)
                }
            }
            #expect(await first.waitForExit() != nil)
            #expect(first.process.terminationReason == .uncaughtSignal)
            let (sent, acknowledged) = batches.all
            #expect(acknowledged.count >= acknowledgedBeforeKill)
            return (sent, acknowledged)
        }

        /// Restarts the server and checks every batch sent: each acknowledged one whole, none torn.
        static func expectEveryAcknowledgedBatchWhole(
            _ arguments: [String], socket: String, sent: [String], acknowledged: Set<String>, what: String
        ) async throws {
            let second = try ServerProcess(arguments)
            let client = ServiceClient(target: .unix(path: socket))
            var lost = [String]()
            var torn = [String]()
            var unacknowledgedButThere = 0
            for tag in sent {
                let count = try await Self.count(tag, client: client)
                if count != 0 && count != Self.batchSize { torn.append("\(tag): \(count)") }
                if acknowledged.contains(tag) && count != Self.batchSize { lost.append(tag) }
                if !acknowledged.contains(tag) && count == Self.batchSize { unacknowledgedButThere += 1 }
            }
            await client.close()
            #expect(lost.isEmpty, "\(lost.count) of \(acknowledged.count) acknowledged batches lost: \(lost.prefix(3))")
            #expect(torn.isEmpty, "torn batches: \(torn.prefix(3))")
            print(
                "\(what): \(acknowledged.count) batches acknowledged before SIGKILL, all whole after restart; "
                    + "\(unacknowledgedButThere) of \(sent.count - acknowledged.count) in flight had been logged")
            second.send(SIGTERM)
            #expect(await second.waitForExit() == 0)
        }

        static func stateDirectory() throws -> (path: String, arguments: [String], socket: String) {
            let path =
                NSTemporaryDirectory() + "vi-continue-catalog-crash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            // Writes go over the Unix socket, as a local tool's do: they need no token there.
            let socket = path + "/serve.sock"
            let arguments = ["--store", "sqlite", "--state-dir", path, "--log-level", "warn", "--unix-socket", socket]
            return (path, arguments, socket)
        }

        /// Writes until `acknowledgedBeforeKill` batches are acknowledged, kills the server, runs
        /// `beforeRestart` on the state directory, restarts and checks every batch sent.
        static func killDuringWritesAndRestart(
            acknowledgedBeforeKill: Int, what: String, beforeRestart: (String) throws -> Void = { _ in }
        ) async throws {
            let state = try Self.stateDirectory()
            defer { try? FileManager.default.removeItem(atPath: state.path) }
            let (sent, acknowledged) = try await Self.writeUntilKilled(
                state.arguments, socket: state.socket, acknowledgedBeforeKill: acknowledgedBeforeKill)
            try beforeRestart(state.path)
            try await Self.expectEveryAcknowledgedBatchWhole(
                state.arguments, socket: state.socket, sent: sent, acknowledged: acknowledged, what: what)
        }

        @Test(
            "SIGKILL during upsert batches: after restart every acknowledged batch is whole, and no batch is torn"
        )
        func sigkillDuringUpserts() async throws {
            try await Self.killDuringWritesAndRestart(acknowledgedBeforeKill: 40, what: "catalog crash")
        }

        @Test(
            "SIGKILL while checkpoints fold the log, restarted without the index: the folded rows and the log hold every acknowledged batch"
        )
        func sigkillDuringFoldsThenNoIndex() async throws {
            // Enough batches for merges, and the checkpoints after them that fold the log.
            try await Self.killDuringWritesAndRestart(
                acknowledgedBeforeKill: 400, what: "catalog crash without the index"
            ) { state in
                let folded = try CatalogFoldedRows(path: state + "/catalog-log-folded.sqlite")
                #expect(try folded.mark() != nil, "no checkpoint folded the log before the kill")
                // Without the index the restart parses the catalog and replays the folded rows,
                // then the changes after them.
                try FileManager.default.removeItem(atPath: state + "/index")
            }
        }

        @Test("a bad entity rejects its batch with INVALID_ARGUMENT, and a restart keeps the rejected batch out")
        func badBatchIsRejectedWhole() async throws {
            let stateDirectory =
                NSTemporaryDirectory() + "vi-continue-catalog-bad-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            // Writes go over the Unix socket, as a local tool's do: they need no token there.
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
            let socket = stateDirectory + "/serve.sock"
            let arguments = [
                "--store", "sqlite", "--state-dir", stateDirectory, "--log-level", "warn", "--unix-socket", socket,
            ]
            let first = try ServerProcess(arguments)
            let client = ServiceClient(target: .unix(path: socket))
            var request = Self.batch("badbatch")
            request.entities[3].title = ""
            let error = await #expect(throws: RPCError.self) { try await client.upsertEntities(request) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("entity 3 (album/badbatch-3): missing \"title\"") == true)
            let good = try await client.upsertEntities(Self.batch("goodbatch"))
            #expect(good.applied == UInt32(Self.batchSize))
            await client.close()
            first.send(SIGTERM)
            #expect(await first.waitForExit() == 0)

            let second = try ServerProcess(arguments)
            let again = ServiceClient(target: .unix(path: socket))
            #expect(try await Self.count("badbatch", client: again) == 0)
            #expect(try await Self.count("goodbatch", client: again) == Self.batchSize)
            await again.close()
            second.send(SIGTERM)
            #expect(await second.waitForExit() == 0)
        }
    }
}
