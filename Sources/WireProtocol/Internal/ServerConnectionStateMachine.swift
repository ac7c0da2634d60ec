/// The connection-wide rules of a server connection, as a value: draining after GOAWAY, the
/// ping-flood and rapid-reset limits, the request-byte budget shared by its streams, and what
/// the idle and keepalive timers do. Events in, verdicts out; `ServerConnection` sends the
/// frames and runs the timers.
///
/// Time is an argument of every event that needs it, so tests can replay a flood or an idle
/// hour in microseconds.
struct ServerConnectionStateMachine {
    enum State {
        /// Taking new streams.
        case active
        /// GOAWAY sent: the streams open finish, then the connection closes.
        case draining
        /// GOAWAY ENHANCE_YOUR_CALM sent and the session terminated: a flood.
        case calmedDown
    }

    /// The limits, from `ServerConfiguration`.
    struct Limits {
        var maxPingsPerSecond: Int
        var resetStreamBurst: Int
        var resetStreamsPerSecond: Int
        var maxBufferedRequestBytes: Int
        var idleTimeout: Duration?
        var keepaliveInterval: Duration?
        var keepaliveTimeout: Duration

        init(_ configuration: ServerConfiguration) {
            maxPingsPerSecond = configuration.maxPingsPerSecond
            resetStreamBurst = configuration.resetStreamBurst
            resetStreamsPerSecond = configuration.resetStreamsPerSecond
            maxBufferedRequestBytes = configuration.maxBufferedRequestBytesPerConnection
            idleTimeout = configuration.idleTimeout
            keepaliveInterval = configuration.keepaliveInterval
            keepaliveTimeout = configuration.keepaliveTimeout
        }
    }

    /// What the keepalive timer does when it fires.
    enum KeepaliveAction: Equatable {
        /// Nothing to check (no keepalive configured).
        case none
        /// The peer was heard from lately: check again at this instant.
        case rearm(at: ContinuousClock.Instant)
        /// The peer has been silent for an interval: send a PING and check again at this instant
        /// (the keepalive timeout).
        case ping(checkAt: ContinuousClock.Instant)
        /// Nothing came back within the timeout after our PING: close the connection.
        case close
    }

    /// What a flood-counted frame leads to.
    enum FloodVerdict: Equatable {
        case allowed
        /// End the connection with GOAWAY ENHANCE_YOUR_CALM.
        case enhanceYourCalm
    }

    /// What the idle timer does when it fires.
    enum IdleAction: Equatable {
        /// Check again at this instant.
        case rearm(at: ContinuousClock.Instant)
        /// No streams and no traffic: send GOAWAY.
        case goaway
        /// Every stream is a request that stopped arriving: GOAWAY, and reset them all.
        case closeStalled
    }

    /// What the streams of the connection are doing, for the idle timer.
    enum StreamActivity {
        case none
        /// Every open stream is still receiving its request.
        case allReceiving
        /// Some stream runs a handler or sends its answer.
        case busy
    }

    let limits: Limits
    private(set) var state = State.active
    private var pingWindowStart: ContinuousClock.Instant
    private var pingsInWindow = 0
    private var resetTokens: Double
    private var resetRefill: ContinuousClock.Instant
    /// Request bytes held by streams still receiving.
    private(set) var bufferedRequestBytes = 0
    /// When a stream last began or received data; the idle timer counts from here.
    private(set) var lastActivity: ContinuousClock.Instant
    /// When our keepalive PING went out, while its answer is awaited.
    private(set) var keepalivePingSentAt: ContinuousClock.Instant?

    init(limits: Limits, now: ContinuousClock.Instant) {
        self.limits = limits
        pingWindowStart = now
        resetRefill = now
        lastActivity = now
        resetTokens = Double(limits.resetStreamBurst)
    }

    /// Whether a call arriving now is refused as UNAVAILABLE: the server is shutting down and
    /// this connection has said so.
    func refusesNewCalls(serverShuttingDown: Bool) -> Bool {
        serverShuttingDown && state != .active
    }

    /// A request stream began, or request bytes arrived.
    mutating func streamActivity(at now: ContinuousClock.Instant) {
        lastActivity = now
    }

    /// The server or the idle timer wants the connection to wind down.
    ///
    /// - Returns: Whether to send GOAWAY (NO_ERROR); only the first time.
    mutating func beginDraining() -> Bool {
        guard state == .active else { return false }
        state = .draining
        return true
    }

    /// A PING (not an ACK) arrived. More than `maxPingsPerSecond` in a one-second window is a flood.
    mutating func pingReceived(at now: ContinuousClock.Instant) -> FloodVerdict {
        if now - pingWindowStart > .seconds(1) {
            pingWindowStart = now
            pingsInWindow = 0
        }
        pingsInWindow += 1
        return pingsInWindow > limits.maxPingsPerSecond ? calmDown() : .allowed
    }

    /// The client reset a stream: counted against a token bucket (rapid reset, CVE-2023-44487).
    mutating func resetReceived(at now: ContinuousClock.Instant) -> FloodVerdict {
        let (seconds, attoseconds) = (now - resetRefill).components
        resetRefill = now
        let refill = (Double(seconds) + Double(attoseconds) / 1e18) * Double(limits.resetStreamsPerSecond)
        resetTokens = min(Double(limits.resetStreamBurst), resetTokens + refill)
        if resetTokens < 1 { return calmDown() }
        resetTokens -= 1
        return .allowed
    }

    private mutating func calmDown() -> FloodVerdict {
        guard state != .calmedDown else { return .allowed }
        state = .calmedDown
        return .enhanceYourCalm
    }

    /// How many more request bytes the connection's streams may hold.
    var requestByteBudget: Int { limits.maxBufferedRequestBytes - bufferedRequestBytes }

    /// A stream holds `count` more request bytes.
    mutating func buffered(_ count: Int) {
        bufferedRequestBytes += count
    }

    /// A stream let go of `count` request bytes (its call started, was answered or went away).
    mutating func released(_ count: Int) {
        bufferedRequestBytes -= count
    }

    /// When the idle timer should next fire; `nil` without an idle timeout.
    func nextIdleCheck(now: ContinuousClock.Instant, hasStreams: Bool) -> ContinuousClock.Instant? {
        guard let timeout = limits.idleTimeout else { return nil }
        // Never in the past: a connection busy with a long stream is checked again a full
        // timeout later rather than in a tight loop.
        return hasStreams ? now + timeout : max(lastActivity + timeout, now + timeout / 4)
    }

    /// When the keepalive timer should first fire; `nil` without keepalive.
    ///
    /// - Parameter lastReadAt: When bytes last arrived from the peer.
    func nextKeepaliveCheck(now: ContinuousClock.Instant, lastReadAt: ContinuousClock.Instant)
        -> ContinuousClock.Instant?
    {
        guard let interval = limits.keepaliveInterval else { return nil }
        // Never sooner than an eighth of the interval: no tight loop of checks.
        return max(lastReadAt + interval, now + interval / 8)
    }

    /// The keepalive timer fired: ping a peer silent for an interval, close one that did not
    /// answer our PING within the timeout (any bytes from it count as an answer).
    ///
    /// - Parameter lastReadAt: When bytes last arrived from the peer.
    mutating func keepaliveTimerFired(now: ContinuousClock.Instant, lastReadAt: ContinuousClock.Instant)
        -> KeepaliveAction
    {
        guard let interval = limits.keepaliveInterval else { return .none }
        if let pingedAt = keepalivePingSentAt {
            if lastReadAt < pingedAt { return .close }
            keepalivePingSentAt = nil
        } else if now - lastReadAt >= interval {
            keepalivePingSentAt = now
            return .ping(checkAt: now + limits.keepaliveTimeout)
        }
        return .rearm(at: nextKeepaliveCheck(now: now, lastReadAt: lastReadAt) ?? now + interval)
    }

    /// A PING ACK arrived: if it answers our keepalive PING, the next interval starts now.
    ///
    /// - Returns: When the keepalive timer should next fire, or `nil` to leave it as it is.
    mutating func pingAcknowledged(now: ContinuousClock.Instant, lastReadAt: ContinuousClock.Instant)
        -> ContinuousClock.Instant?
    {
        guard keepalivePingSentAt != nil else { return nil }
        keepalivePingSentAt = nil
        return nextKeepaliveCheck(now: now, lastReadAt: lastReadAt)
    }

    /// The idle timer fired.
    func idleTimerFired(now: ContinuousClock.Instant, streams: StreamActivity) -> IdleAction {
        guard let timeout = limits.idleTimeout else { return .rearm(at: now + .seconds(3600)) }
        if now - lastActivity < timeout {
            return .rearm(at: nextIdleCheck(now: now, hasStreams: streams != .none) ?? now + timeout)
        }
        switch streams {
        case .none: return .goaway
        case .allReceiving: return .closeStalled
        case .busy: return .rearm(at: now + timeout)
        }
    }
}
