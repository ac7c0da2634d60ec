internal import Dispatch
internal import Foundation
internal import Synchronization

/// One instance's copy of a catalog shared through Redis: it follows the shared log
/// (``RedisCatalogStream``) into its engine, in log order, and sends this instance's writes there.
///
/// A write is acknowledged once Redis has it (with `appendfsync always`, on disk), and answered
/// once this instance has applied it, so the writer reads its own write. Every instance applies
/// the same entries in the same order, each as version position + 1 (the catalog file alone is
/// version 1), so equal versions mean equal catalogs everywhere. An instance that starts late, or
/// was cut off while the stream was trimmed past it, first takes the folded state (each entity's
/// last record) and then follows the stream from there.
///
/// The catalog file is the baseline every instance loads at start; the shared writes apply on top.
public final class CatalogReplica: CatalogWriter, Sendable {
    /// The engine the shared writes are applied to.
    public let engine: SearchEngine
    let stream: RedisCatalogStream
    /// How long an instance may stay behind the stream's head before it reports itself not serving.
    public let lagBound: Duration
    /// How long the follower waits for new entries per read.
    static let readBlock = Duration.milliseconds(500)
    /// The most entries applied per read.
    static let readBatch = 512

    private struct State {
        /// The position of the last entry applied; 0 before any.
        var applied: UInt64 = 0
        /// Whether a read has found nothing more after `applied` since start.
        var caughtUp = false
        /// Since when every read has found more waiting, if the last one did.
        var behindSince: ContinuousClock.Instant?
        /// Writers waiting for their entry, by position.
        var waiters: [UInt64: DispatchSemaphore] = [:]
        /// What each applied change counted, kept until its writer has read it.
        var counts: [UInt64: Int] = [:]
        var lastError: String?
        /// Set when Redis holds an older log than this instance applied: it lost acknowledged
        /// writes (restarted without its append-only file), and nothing may be applied or written
        /// on top of that until it is restored.
        var lostLog: String?
        var stopped = false
    }

    private let state = Mutex(State())
    /// The connection writes are sent on; writes come one at a time (the service's write lane).
    private let writerConnection = Mutex<RedisConnection?>(nil)
    private let follower = BlockingLane(label: "vi-continue.catalog-follower")
    private let onServingChange: @Sendable (Bool) -> Void
    private let serving = Atomic<Bool>(false)

    /// Creates the replica and starts following the shared log.
    ///
    /// - Parameters:
    ///   - engine: The engine, loaded from the catalog file and taking writes from nothing else.
    ///   - address: The Redis server holding the shared log.
    ///   - keyPrefix: The prefix of the log's keys, a Redis Cluster hash tag.
    ///   - retainedEntries: About how many entries the stream keeps.
    ///   - lagBound: How long the instance may stay behind before it is not serving.
    ///   - onServingChange: Called (on the follower's thread) when the instance starts or stops
    ///     being caught up: it is not, until its first read finds the stream's head.
    public init(
        engine: SearchEngine, address: RedisAddress, keyPrefix: String = "{vi-continue:catalog}",
        retainedEntries: Int = 10_000, lagBound: Duration = .seconds(5),
        onServingChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.engine = engine
        stream = RedisCatalogStream(address: address, keyPrefix: keyPrefix, retainedEntries: retainedEntries)
        self.lagBound = lagBound
        self.onServingChange = onServingChange
        follower.enqueue { [self] in follow() }
    }

    /// Stops following (within one read's block).
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    /// The position of the last shared entry applied here.
    public var appliedPosition: UInt64 { state.withLock { $0.applied } }

    /// Whether this instance is caught up: its reads reach the stream's head, and have not found
    /// more waiting for longer than ``lagBound``.
    public var isCaughtUp: Bool { serving.load(ordering: .relaxed) }

    /// The last Redis error the follower met, if its last attempt failed.
    public var lastError: String? { state.withLock { $0.lastError } }

    // MARK: Writes

    @discardableResult
    public func upsert(_ batch: [Entity]) throws(SearchError) -> CatalogUpdate {
        try write { snapshot throws(SearchError) in try SearchEngine.upsertChange(batch, on: snapshot) }
    }

    @discardableResult
    public func delete(_ refs: [EntityRef]) throws(SearchError) -> CatalogUpdate {
        try write { snapshot throws(SearchError) in try SearchEngine.deleteChange(refs, on: snapshot) }
    }

    /// Checks a write against this instance's catalog, appends it to the shared log, and waits
    /// until it is applied here.
    private func write(
        _ change: (CatalogSnapshot) throws(SearchError) -> (CatalogChange?, [CatalogUpdate.EntityError])
    ) throws(SearchError) -> CatalogUpdate {
        if let lost = state.withLock({ $0.lostLog }) {
            throw SearchError(code: .storage, message: lost + "; catalog writes are refused until it is restored")
        }
        let snapshot = engine.snapshot
        let (made, errors) = try change(snapshot)
        guard let made else { return CatalogUpdate(applied: 0, catalogVersion: snapshot.version, errors: errors) }
        let position = try append(made)
        let count = waitUntilApplied(position) ?? Self.count(of: made)
        return CatalogUpdate(applied: count, catalogVersion: position + 1, errors: errors)
    }

    /// Sends a change to Redis, retrying once on a fresh connection: the write id makes a retry
    /// of a write Redis already took return its position instead of writing it again.
    private func append(_ change: CatalogChange) throws(SearchError) -> UInt64 {
        let command = stream.appendCommand(change, writeID: UUID().uuidString)
        var lastFailure = ""
        for _ in 0..<2 {
            let reply: RedisReply
            do throws(RedisConnection.Failure) {
                reply = try writerConnection.withLock { held throws(RedisConnection.Failure) -> RedisReply in
                    if held == nil {
                        held = try RedisConnection(
                            address: stream.address, connectTimeout: .seconds(1), commandTimeout: .seconds(5))
                    }
                    do throws(RedisConnection.Failure) {
                        return try held!.pipeline([command])[0]
                    } catch {
                        held = nil
                        throw error
                    }
                }
            } catch {
                lastFailure = error.message
                if error.timedOut { break }
                continue
            }
            return try RedisCatalogStream.position(appended: reply)
        }
        throw SearchError(
            code: .storage,
            message:
                "catalog writes go through Redis at \(stream.address), which is unreachable; nothing was written "
                + "(reads go on from catalog version \(engine.snapshot.version))",
            cause: lastFailure)
    }

    /// Waits until the follower has applied `position`; returns what the change counted, or
    /// `nil` if the follower did not get there in 5 s (the write is in Redis all the same).
    private func waitUntilApplied(_ position: UInt64) -> Int? {
        let semaphore = DispatchSemaphore(value: 0)
        let done = state.withLock { state -> Bool in
            if state.applied >= position { return true }
            state.waiters[position] = semaphore
            return false
        }
        if !done, semaphore.wait(timeout: .now() + 5) == .timedOut {
            state.withLock { _ = $0.waiters.removeValue(forKey: position) }
            return nil
        }
        return state.withLock { $0.counts.removeValue(forKey: position) }
    }

    private static func count(of change: CatalogChange) -> Int {
        switch change {
        case .upsert(let entities): Set(entities.map(\.ref)).count
        case .delete(let refs): refs.count
        }
    }

    // MARK: Following

    /// The follower's loop: connect, make sure the stream still holds the next entry (else take
    /// the folded state), then read and apply entries until stopped; after a failure, reconnect
    /// with backoff (50 ms doubling to 2 s).
    private func follow() {
        var connection: RedisConnection?
        var needsGapCheck = true
        var backoff = Duration.milliseconds(50)
        while !state.withLock({ $0.stopped }) {
            do {
                if connection == nil {
                    connection = try RedisConnection(
                        address: stream.address, connectTimeout: .seconds(1),
                        commandTimeout: Self.readBlock + .seconds(2))
                }
                guard let link = connection else { continue }
                if needsGapCheck {
                    if let lost = try checkLog(link) {
                        state.withLock {
                            $0.lostLog = lost
                            $0.caughtUp = false
                        }
                        if serving.exchange(false, ordering: .relaxed) { onServingChange(false) }
                        pause(after: lost, backoff: &backoff)
                        continue
                    }
                    state.withLock { $0.lostLog = nil }
                    needsGapCheck = false
                }
                let (applied, caughtUp) = state.withLock { ($0.applied, $0.caughtUp) }
                // Until the first read finds the head, reads answer at once: an instance that
                // is caught up says so without waiting out a block.
                let reply = try link.pipeline([
                    stream.readCommand(after: applied, count: Self.readBatch, block: caughtUp ? Self.readBlock : nil)
                ])[0]
                let entries = try RedisCatalogStream.entries(read: reply)
                if let first = entries.first, first.position != applied + 1 {
                    // Trimmed past this instance meanwhile: the folded state has what is missing.
                    needsGapCheck = true
                    continue
                }
                apply(entries)
                noteRead(foundMore: entries.count == Self.readBatch)
                backoff = .milliseconds(50)
            } catch let failure as RedisConnection.Failure {
                connection = nil
                needsGapCheck = true
                pause(after: failure.message, backoff: &backoff)
            } catch {
                // A malformed entry or a refused command: nothing later can be applied before it.
                pause(after: "\(error)", backoff: &backoff)
            }
        }
    }

    /// Checks the shared log against this instance: takes the folded state when the stream no
    /// longer holds the entry after this instance's.
    ///
    /// - Returns: Why following must stop, when Redis's log ends before what this instance applied
    ///   (Redis lost acknowledged writes), else `nil`.
    private func checkLog(_ link: RedisConnection) throws -> String? {
        let applied = appliedPosition
        let replies = try link.pipeline([stream.oldestCommand, stream.positionCommand])
        let head = try RedisCatalogStream.headPosition(replies[1])
        if head < applied {
            return
                "Redis at \(stream.address) holds the catalog log up to entry \(head), but this instance applied "
                + "\(applied): Redis lost acknowledged writes (restarted without its append-only file?)"
        }
        let oldest = try RedisCatalogStream.oldestPosition(replies[0])
        guard let oldest, oldest > applied + 1 else { return nil }
        let (position, changes) = try RedisCatalogStream.folded(link.pipeline([stream.foldedCommand])[0])
        guard position > applied else { return nil }
        _ = engine.applyFollowed(changes.map { (version: position + 1, change: $0) })
        finishApplying(through: position, counts: [:])
        return nil
    }

    private func apply(_ entries: [(position: UInt64, change: CatalogChange)]) {
        guard let last = entries.last else { return }
        let counts = engine.applyFollowed(entries.map { (version: $0.position + 1, change: $0.change) })
        var byPosition = [UInt64: Int]()
        for (entry, count) in zip(entries, counts) { byPosition[entry.position] = count }
        finishApplying(through: last.position, counts: byPosition)
    }

    /// Records the applied position and wakes the writers waiting for it.
    private func finishApplying(through position: UInt64, counts: [UInt64: Int]) {
        let woken = state.withLock { state -> [DispatchSemaphore] in
            state.applied = position
            var woken = [DispatchSemaphore]()
            for (waiting, semaphore) in state.waiters where waiting <= position {
                if let count = counts[waiting] { state.counts[waiting] = count }
                woken.append(semaphore)
                state.waiters.removeValue(forKey: waiting)
            }
            return woken
        }
        for semaphore in woken { semaphore.signal() }
    }

    /// Updates whether this instance is serving after a read: caught up when a read finds no more
    /// waiting; behind for too long when reads have found more for longer than ``lagBound``.
    private func noteRead(foundMore: Bool) {
        let now = ContinuousClock.now
        let isServing = state.withLock { state -> Bool in
            state.lastError = nil
            if foundMore {
                if state.behindSince == nil { state.behindSince = now }
            } else {
                state.behindSince = nil
                state.caughtUp = true
            }
            return state.caughtUp && (state.behindSince.map { now - $0 <= lagBound } ?? true)
        }
        if serving.exchange(isServing, ordering: .relaxed) != isServing { onServingChange(isServing) }
    }

    /// Records a failure and sleeps before the next attempt. A Redis that is down leaves the
    /// instance serving what it has, if it was caught up: every instance is equally cut off.
    private func pause(after message: String, backoff: inout Duration) {
        state.withLock { $0.lastError = message }
        Thread.sleep(forTimeInterval: Double(backoff.wholeMilliseconds) / 1000)
        backoff = min(backoff * 2, .seconds(2))
    }
}
