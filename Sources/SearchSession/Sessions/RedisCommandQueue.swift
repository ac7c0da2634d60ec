internal import Dispatch
internal import Synchronization

/// Runs Redis commands on a thread of its own, pipelining whatever piles up, and keeps the
/// connection alive: reconnects after failures with exponential backoff.
///
/// hiredis's blocking calls must never run on Swift's cooperative pool (a slow Redis would stall
/// every task of the process), so callers suspend on a continuation while a ``BlockingLane``
/// does the I/O. A lane, not a dispatch queue: a queue's work waits for a worker of dispatch's
/// shared pool, which other blocked I/O can hold, and a command timeout means nothing if the
/// command has not started. Requests that arrive
/// while a round trip is in flight are sent together as one pipeline on the next turn: many
/// concurrent captures cost one round trip, not one each.
///
/// While Redis is down, a request fails at once with the last error instead of waiting for a
/// connect; a new connect is attempted when the backoff (50 ms doubling to 2 s) has passed, so
/// the store recovers by itself when Redis returns. A command that failed on an old connection
/// (Redis restarted, the socket is stale) is retried once on a fresh one; every command this
/// queue is given must therefore be idempotent.
final class RedisCommandQueue: Sendable {
    /// One caller's commands and where their replies go.
    private struct Job: Sendable {
        var commands: [[[UInt8]]]
        var complete: @Sendable (Result<[RedisReply], SearchError>) -> Void
    }

    private struct Pending {
        var jobs: [Job] = []
        var draining = false
    }

    /// The connection's life: touched only on `lane`, the lock only makes that checkable.
    private enum Link {
        case idle
        case connected(RedisConnection)
        case down(lastError: String, retryAt: ContinuousClock.Instant, backoff: Duration)
    }

    /// The most commands sent in one pipeline; the rest wait for the next turn.
    static let maximumBatch = 512
    static let firstBackoff = Duration.milliseconds(50)
    static let maximumBackoff = Duration.seconds(2)

    let address: RedisAddress
    private let connectTimeout: Duration
    private let commandTimeout: Duration
    private let pending = Mutex(Pending())
    private let link = Mutex(Link.idle)
    private let lane: BlockingLane
    private let failures = Atomic<Int>(0)

    /// Commands that failed since the queue was made: those of a pipeline that got no answer
    /// (Redis unreachable, a broken connection, a timeout) and those answered with an error.
    var failedCommands: Int { failures.load(ordering: .relaxed) }

    /// Creates a queue; it connects on its first command.
    ///
    /// - Parameters:
    ///   - address: The server.
    ///   - connectTimeout: The longest a connect may take.
    ///   - commandTimeout: The longest a pipeline's write or each reply's read may block.
    init(address: RedisAddress, connectTimeout: Duration, commandTimeout: Duration) {
        self.address = address
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        lane = BlockingLane(label: "vi-continue.redis \(address)")
    }

    /// Sends commands in one pipeline and returns their replies in order.
    ///
    /// - Parameter commands: Idempotent commands, each as its arguments.
    /// - Returns: One reply per command (an error reply is a value).
    /// - Throws: ``SearchError/Code/storage`` when Redis cannot be reached or the connection fails.
    func execute(_ commands: [[[UInt8]]]) async throws(SearchError) -> [RedisReply] {
        let result = await withCheckedContinuation { continuation in
            submit(Job(commands: commands, complete: { continuation.resume(returning: $0) }))
        }
        return try result.get()
    }

    private func submit(_ job: Job) {
        let startDrain = pending.withLock { pending in
            pending.jobs.append(job)
            if pending.draining { return false }
            pending.draining = true
            return true
        }
        if startDrain { lane.enqueue { self.drain() } }
    }

    /// Runs batches until nothing is pending; runs on `lane` only.
    private func drain() {
        while true {
            let batch: [Job] = pending.withLock { pending in
                var count = 0
                var taken = 0
                while taken < pending.jobs.count,
                    taken == 0 || count + pending.jobs[taken].commands.count <= Self.maximumBatch
                {
                    count += pending.jobs[taken].commands.count
                    taken += 1
                }
                if taken == 0 { pending.draining = false }
                let batch = Array(pending.jobs.prefix(taken))
                pending.jobs.removeFirst(taken)
                return batch
            }
            if batch.isEmpty { return }
            let result = link.withLock { link in perform(batch.flatMap(\.commands), on: &link) }
            switch result {
            case .success(let replies):
                let errors = replies.count { if case .error = $0 { true } else { false } }
                if errors > 0 { failures.add(errors, ordering: .relaxed) }
            case .failure:
                failures.add(batch.reduce(0) { $0 + $1.commands.count }, ordering: .relaxed)
            }
            var offset = 0
            for job in batch {
                switch result {
                case .success(let replies):
                    job.complete(.success(Array(replies[offset..<offset + job.commands.count])))
                case .failure(let error):
                    job.complete(.failure(error))
                }
                offset += job.commands.count
            }
        }
    }

    private func perform(_ commands: [[[UInt8]]], on link: inout Link) -> Result<[RedisReply], SearchError> {
        var mayRetry = true
        while true {
            let connection: RedisConnection
            let isFresh: Bool
            switch link {
            case .connected(let existing):
                connection = existing
                isFresh = false
            case .down(let lastError, let retryAt, _) where ContinuousClock.now < retryAt:
                return .failure(unreachable(lastError, retryIn: retryAt - ContinuousClock.now))
            case .idle, .down:
                do {
                    connection = try RedisConnection(
                        address: address, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
                } catch {
                    markDown(&link, error.message)
                    return .failure(unreachable(error.message, retryIn: nil))
                }
                link = .connected(connection)
                isFresh = true
            }
            do {
                return .success(try connection.pipeline(commands))
            } catch {
                markDown(&link, error.message)
                if !isFresh, !error.timedOut, mayRetry {
                    // The connection predates the failure (Redis may have restarted): one retry
                    // on a fresh connection, skipping the backoff meant for a server that is down.
                    link = .idle
                    mayRetry = false
                    continue
                }
                return .failure(
                    SearchError(
                        code: .storage, message: "the session store (Redis at \(address)) failed",
                        cause: error.message))
            }
        }
    }

    private func markDown(_ link: inout Link, _ message: String) {
        let backoff: Duration
        if case .down(_, _, let previous) = link {
            backoff = min(previous * 2, Self.maximumBackoff)
        } else {
            backoff = Self.firstBackoff
        }
        link = .down(lastError: message, retryAt: ContinuousClock.now + backoff, backoff: backoff)
    }

    private func unreachable(_ message: String, retryIn: Duration?) -> SearchError {
        var text = "the session store (Redis at \(address)) is unreachable"
        if let retryIn {
            text += "; reconnecting in \(max(retryIn.wholeMilliseconds, 1)) ms"
        }
        return SearchError(code: .storage, message: text, cause: message)
    }
}
