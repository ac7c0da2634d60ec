import Testing

@testable import WireProtocol

/// The connection-wide rules on their own: floods, draining, the request-byte budget and the
/// idle timer, with time passed in, so a second of pings or an idle minute takes microseconds.
@Suite struct ServerConnectionStateMachineTests {
    typealias Machine = ServerConnectionStateMachine

    static let start = ContinuousClock.now

    static func machine(
        pings: Int = 5, resetBurst: Int = 4, resetsPerSecond: Int = 2, budget: Int = 100,
        idleTimeout: Duration? = .seconds(10)
    ) -> Machine {
        var configuration = ServerConfiguration()
        configuration.maxPingsPerSecond = pings
        configuration.resetStreamBurst = resetBurst
        configuration.resetStreamsPerSecond = resetsPerSecond
        configuration.maxBufferedRequestBytesPerConnection = budget
        configuration.idleTimeout = idleTimeout
        return Machine(limits: .init(configuration), now: start)
    }

    @Test func pingsUpToTheLimitInASecondAreAllowedAndOneMoreCalmsTheConnection() {
        var machine = Self.machine(pings: 5)
        for index in 0..<5 {
            #expect(machine.pingReceived(at: Self.start + .milliseconds(index)) == .allowed)
        }
        #expect(machine.pingReceived(at: Self.start + .milliseconds(10)) == .enhanceYourCalm)
        #expect(machine.state == .calmedDown)
        // The GOAWAY goes out once.
        #expect(machine.pingReceived(at: Self.start + .milliseconds(11)) == .allowed)
    }

    @Test func theSameNumberOfPingsSpreadOverSecondsIsNoFlood() {
        var machine = Self.machine(pings: 5)
        for index in 0..<50 {
            #expect(machine.pingReceived(at: Self.start + .milliseconds(300 * index)) == .allowed)
        }
        #expect(machine.state == .active)
    }

    @Test func rapidResetsBeyondTheBurstCalmTheConnection() {
        var machine = Self.machine(resetBurst: 4, resetsPerSecond: 2)
        for _ in 0..<4 { #expect(machine.resetReceived(at: Self.start) == .allowed) }
        #expect(machine.resetReceived(at: Self.start) == .enhanceYourCalm)
    }

    @Test func resetsAtTheRefillRateGoOnForEver() {
        var machine = Self.machine(resetBurst: 4, resetsPerSecond: 2)
        for index in 0..<1000 {
            #expect(machine.resetReceived(at: Self.start + .milliseconds(500 * index)) == .allowed)
        }
    }

    @Test func theBucketRefillsAfterABurst() {
        var machine = Self.machine(resetBurst: 4, resetsPerSecond: 2)
        for _ in 0..<4 { _ = machine.resetReceived(at: Self.start) }
        #expect(machine.resetReceived(at: Self.start + .seconds(1)) == .allowed)
        #expect(machine.resetReceived(at: Self.start + .seconds(1)) == .allowed)
        #expect(machine.resetReceived(at: Self.start + .seconds(1)) == .enhanceYourCalm)
    }

    @Test func goawayIsSentOnceAndNewCallsAreRefusedOnlyWhenTheServerShutsDown() {
        var machine = Self.machine()
        #expect(!machine.refusesNewCalls(serverShuttingDown: true))
        let first = machine.beginDraining()
        let second = machine.beginDraining()
        #expect(first)
        #expect(!second)
        #expect(machine.refusesNewCalls(serverShuttingDown: true))
        // An idle connection's GOAWAY still lets a call that raced it through.
        #expect(!machine.refusesNewCalls(serverShuttingDown: false))
    }

    @Test func aCalmedDownConnectionDoesNotDrainAgain() {
        var machine = Self.machine(pings: 0)
        _ = machine.pingReceived(at: Self.start)
        let drains = machine.beginDraining()
        #expect(!drains)
        #expect(machine.refusesNewCalls(serverShuttingDown: true))
    }

    @Test func theBudgetFollowsWhatStreamsHoldAndRelease() {
        var machine = Self.machine(budget: 100)
        machine.buffered(60)
        machine.buffered(30)
        #expect(machine.requestByteBudget == 10)
        machine.released(60)
        #expect(machine.requestByteBudget == 70)
    }

    @Test(
        "an idle timer that finds no traffic for the timeout acts on what the streams do",
        arguments: [
            (Machine.StreamActivity.none, Machine.IdleAction.goaway),
            (.allReceiving, .closeStalled),
            (.busy, .rearm(at: start + .seconds(21))),
        ])
    func idle(streams: Machine.StreamActivity, action: Machine.IdleAction) {
        let machine = Self.machine(idleTimeout: .seconds(10))
        #expect(machine.idleTimerFired(now: Self.start + .seconds(11), streams: streams) == action)
    }

    @Test func recentActivityPutsTheIdleCheckATimeoutAfterIt() {
        var machine = Self.machine(idleTimeout: .seconds(10))
        machine.streamActivity(at: Self.start + .seconds(8))
        #expect(
            machine.idleTimerFired(now: Self.start + .seconds(10), streams: .none)
                == .rearm(at: Self.start + .seconds(18)))
    }

    @Test func withoutAnIdleTimeoutThereIsNoIdleCheck() {
        #expect(Self.machine(idleTimeout: nil).nextIdleCheck(now: Self.start, hasStreams: false) == nil)
    }
}

/// The keepalive timer's rules, with time passed in: a silent peer is pinged after an interval
/// and closed when nothing comes back within the timeout.
@Suite struct KeepaliveStateMachineTests {
    typealias Machine = ServerConnectionStateMachine

    static let start = ContinuousClock.now

    static func machine(interval: Duration? = .seconds(60), timeout: Duration = .seconds(20)) -> Machine {
        var configuration = ServerConfiguration()
        configuration.keepaliveInterval = interval
        configuration.keepaliveTimeout = timeout
        return Machine(limits: .init(configuration), now: start)
    }

    @Test("without keepalive there is no timer and a stray firing does nothing")
    func noKeepalive() {
        var machine = Self.machine(interval: nil)
        #expect(machine.nextKeepaliveCheck(now: Self.start, lastReadAt: Self.start) == nil)
        #expect(machine.keepaliveTimerFired(now: Self.start + .seconds(600), lastReadAt: Self.start) == .none)
        #expect(machine.pingAcknowledged(now: Self.start, lastReadAt: Self.start) == nil)
    }

    @Test("a peer heard from within the interval is not pinged: the check moves to an interval after it")
    func trafficDefersThePing() {
        var machine = Self.machine()
        #expect(machine.nextKeepaliveCheck(now: Self.start, lastReadAt: Self.start) == Self.start + .seconds(60))
        let heard = Self.start + .seconds(50)
        #expect(
            machine.keepaliveTimerFired(now: Self.start + .seconds(60), lastReadAt: heard)
                == .rearm(at: heard + .seconds(60)))
        #expect(machine.keepalivePingSentAt == nil)
    }

    @Test("the next check is never sooner than an eighth of the interval")
    func noTightLoop() {
        let machine = Self.machine()
        let now = Self.start + .seconds(600)
        #expect(machine.nextKeepaliveCheck(now: now, lastReadAt: Self.start) == now + .milliseconds(7500))
    }

    @Test("silence for an interval sends a PING; its ACK starts the next interval")
    func pingThenAck() {
        var machine = Self.machine()
        let fired = Self.start + .seconds(60)
        #expect(machine.keepaliveTimerFired(now: fired, lastReadAt: Self.start) == .ping(checkAt: fired + .seconds(20)))
        #expect(machine.keepalivePingSentAt == fired)
        let acked = fired + .seconds(1)
        #expect(machine.pingAcknowledged(now: acked, lastReadAt: acked) == acked + .seconds(60))
        #expect(machine.keepalivePingSentAt == nil)
        #expect(machine.pingAcknowledged(now: acked, lastReadAt: acked) == nil, "one ACK per PING")
    }

    @Test("nothing from the peer within the timeout after the PING closes the connection")
    func silentPeerIsClosed() {
        var machine = Self.machine()
        let fired = Self.start + .seconds(60)
        _ = machine.keepaliveTimerFired(now: fired, lastReadAt: Self.start)
        #expect(machine.keepaliveTimerFired(now: fired + .seconds(20), lastReadAt: Self.start) == .close)
    }

    @Test("any bytes after the PING count as an answer, ACK or not")
    func anyBytesAnswer() {
        var machine = Self.machine()
        let fired = Self.start + .seconds(60)
        _ = machine.keepaliveTimerFired(now: fired, lastReadAt: Self.start)
        let heard = fired + .seconds(5)
        #expect(
            machine.keepaliveTimerFired(now: fired + .seconds(20), lastReadAt: heard)
                == .rearm(at: heard + .seconds(60)))
        #expect(machine.keepalivePingSentAt == nil)
    }
}
