import Foundation
import H2TestClient
import Synchronization
import Testing

@testable import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Where handlers run, as their methods were registered: `.onLoop` on the event loop, `.offLoop`
/// in a task, `.mayBlock` on the blocking pool, never on a loop or the cooperative pool, over
/// gRPC and the web protocols alike.
@Suite struct ExecutionPolicyTests {
    /// The server's core, for handlers that ask whether they run on one of its loops.
    final class CoreBox: Sendable {
        let core = Mutex<ServerCore?>(nil)
        var onLoop: Bool { core.withLock { $0?.loops.contains { $0.inLoop } ?? false } }
    }

    /// Counters shared with handlers and pool work.
    final class Counters: Sendable {
        let release = Atomic<Bool>(false)
        let started = Atomic<Int>(0)
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
    }

    /// Where a handler ran: [on a loop, on a blocking thread, on a blocking thread after an await].
    static func whereItRan(_ box: CoreBox) async -> [UInt8] {
        let first: [UInt8] = [box.onLoop ? 1 : 0, BlockingExecutor.isCurrentThreadBlocking ? 1 : 0]
        await Task.yield()
        return first + [BlockingExecutor.isCurrentThreadBlocking ? 1 : 0]
    }

    static func methods(_ box: CoreBox) -> [ServerMethod] {
        var methods: [ServerMethod] = []
        for execution in [ServerMethod.Execution.onLoop, .offLoop, .mayBlock] {
            methods.append(
                ServerMethod(path: "/test.Where/Async-\(execution)", kind: .unary, execution: execution) {
                    _, _, writer in
                    try await writer.write(await whereItRan(box))
                })
            methods.append(
                ServerMethod(unaryPath: "/test.Where/Sync-\(execution)", execution: execution) { _, _ in
                    [box.onLoop ? 1 : 0, BlockingExecutor.isCurrentThreadBlocking ? 1 : 0]
                })
        }
        return methods
    }

    static func withWhereServer(_ body: @Sendable (ListeningAddresses) async throws -> Void) async throws {
        let box = CoreBox()
        let configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        try await withServer(configuration, methods: methods(box)) { server, addresses in
            box.core.withLock { $0 = server.core }
            try await body(addresses)
        }
    }

    /// Where each kind of handler starts, and (async ones) where it is after an await.
    static let expected: [(ServerMethod.Execution, async: [UInt8], sync: [UInt8])] = [
        (.onLoop, [1, 0, 0], [1, 0]),
        (.offLoop, [0, 0, 0], [0, 0]),
        (.mayBlock, [0, 1, 1], [0, 1]),
    ]

    @Test("over gRPC: .onLoop starts on the loop, .offLoop in a task, .mayBlock on the blocking pool only")
    func overGRPC() async throws {
        try await Self.withWhereServer { addresses in
            let client = EndToEndTests.tcpClient(addresses)
            for (execution, async, sync) in Self.expected {
                let asyncAnswer = try await client.unary(path: "/test.Where/Async-\(execution)", request: [])
                #expect(asyncAnswer.message == async, "\(execution), async")
                let syncAnswer = try await client.unary(path: "/test.Where/Sync-\(execution)", request: [])
                #expect(syncAnswer.message == sync, "\(execution), synchronous")
            }
            await client.close()
        }
    }

    @Test("over Connect on HTTP/2: the same policy as over gRPC")
    func overConnect() async throws {
        try await Self.withWhereServer { addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            for (execution, async, sync) in Self.expected {
                for (kind, expected) in [("Async", async), ("Sync", sync)] {
                    let reply = try await client.call(
                        path: "/test.Where/\(kind)-\(execution)", body: [],
                        replace: ["content-type": "application/proto", "te": "<none>"])
                    #expect(reply.httpStatus == 200)
                    // A web call starts in a task except a small synchronous .onLoop one: an async
                    // .onLoop handler runs in a task there, not on the loop.
                    let adjusted = kind == "Async" && execution == .onLoop ? [0, 0, 0] : expected
                    #expect(reply.data == adjusted, "\(execution), \(kind)")
                }
            }
        }
    }

    @Test("blocking handlers beyond the cooperative pool's width block neither it nor the loop")
    func blockingDoesNotStarve() async throws {
        let counters = Counters()
        let blocking = ServerMethod(unaryPath: "/test.Where/Block", execution: .mayBlock) { request, _ in
            counters.started.add(1, ordering: .relaxed)
            // Blocks its thread outright, as a C library call or a disk read would (bounded, so a
            // failing test cannot hang for ever).
            for _ in 0..<60_000 where !counters.release.load(ordering: .relaxed) { usleep(500) }
            return request
        }
        let suspending = ServerMethod(path: "/test.Where/Suspend", kind: .unary, execution: .offLoop) {
            request, _, writer in
            try await Task.sleep(for: .milliseconds(1))
            try await writer.write(request)
        }
        let blockers = ProcessInfo.processInfo.activeProcessorCount + 2
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.maxBlockingThreads = blockers
        try await withServer(configuration, methods: [blocking, suspending]) { server, addresses in
            let client = EndToEndTests.tcpClient(addresses)
            defer { counters.release.store(true, ordering: .relaxed) }
            try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for index in 0..<blockers {
                    group.addTask {
                        try await client.unary(path: "/test.Where/Block", request: [UInt8(index)]).message
                    }
                }
                while counters.started.load(ordering: .relaxed) < blockers {
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(server.core.blockingExecutor.threadCount == blockers)
                // Every blocking handler holds a thread now; a task and the loop still answer.
                let answer = try await client.unary(
                    path: "/test.Where/Suspend", request: [7], options: CallOptions(timeout: .seconds(20)))
                #expect(answer.message == [7])
                counters.release.store(true, ordering: .relaxed)
                var answered: Set<[UInt8]> = []
                for try await message in group { answered.insert(message) }
                #expect(answered == Set((0..<blockers).map { [UInt8($0)] }))
            }
            await client.close()
        }
    }

    @Test("the web side reads files found per request on the blocking pool")
    func fileLookupsBlockOffTheLoop() async throws {
        let lookedUpOnBlockingThread = Mutex<[Bool]>([])
        var configuration = ServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), eventLoopCount: 1)
        configuration.web.fileLookup = { path in
            lookedUpOnBlockingThread.withLock { $0.append(BlockingExecutor.isCurrentThreadBlocking) }
            return path == "/picture.png" ? WebFile(contentType: "image/png", bytes: [0x89, 0x50]) : nil
        }
        try await withServer(configuration, methods: []) { _, addresses in
            let client = try RawH2Client(port: addresses.tcpPort!)
            for (path, status) in [("/picture.png", 200), ("/missing.png", 404)] {
                let reply = try await client.call(
                    path: path, body: [], replace: [":method": "GET", "content-type": "<none>", "te": "<none>"])
                #expect(reply.httpStatus == status, "\(path)")
            }
        }
        #expect(lookedUpOnBlockingThread.withLock { $0 } == [true, true])
    }

    @Test("the blocking pool runs at most its threads at once, starts them as work comes, ends them when idle")
    func poolBounds() async throws {
        let pool = BlockingExecutor(maximumThreads: 2, idleTimeout: .milliseconds(50))
        #expect(pool.threadCount == 0)
        let counters = Counters()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        pool.execute {
                            let now = counters.running.add(1, ordering: .relaxed).newValue
                            counters.most.max(now, ordering: .relaxed)
                            usleep(2000)
                            counters.running.subtract(1, ordering: .relaxed)
                            continuation.resume()
                        }
                    }
                }
            }
        }
        #expect(counters.most.load(ordering: .relaxed) <= 2)
        #expect(counters.most.load(ordering: .relaxed) >= 1)
        for _ in 0..<2000 where pool.threadCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(pool.threadCount == 0, "idle threads end")
    }
}
