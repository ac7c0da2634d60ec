/// A value that belongs to one event loop's thread, carried through `Sendable` code (a handler's
/// task, a closure handed to `EventLoop.execute`) and touched only back on that thread.
///
/// Debug builds check every access and stop at the first one from another thread; release
/// builds check nothing and cost nothing. The model is swift-nio's `NIOLoopBound`.
struct LoopBound<Value>: @unchecked Sendable {
    let loop: EventLoop
    private let _value: Value

    /// Wraps `value`; on the loop's thread only, since the value is already that thread's.
    init(_ value: Value, loop: EventLoop) {
        loop.assertInLoop()
        self.loop = loop
        _value = value
    }

    /// The value; on the loop's thread only.
    var value: Value {
        loop.assertInLoop()
        return _value
    }
}

extension EventLoop {
    /// Stops a debug build when the caller is not on this loop's thread; nothing in release.
    ///
    /// Before the loop's thread starts, the thread that made the loop owns it (tests drive
    /// connections that way), so only a started loop is checked.
    @inline(__always)
    func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inLoopOrNotStarted, "touched from outside event loop \(name)", file: file, line: line)
    }
}
