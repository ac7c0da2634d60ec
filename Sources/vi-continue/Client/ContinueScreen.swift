import ContinueService
import Dispatch
import Foundation
import SearchAPI
import Synchronization
import TerminalUI
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the interactive search screen: keys and signals in, Search and Resolve calls out.
///
/// One loop owns the ``SearchScreenState``; a reader thread turns terminal bytes into keys,
/// signal sources turn SIGWINCH into a redraw and SIGINT/SIGTERM/SIGHUP into a quit, and calls
/// to the server run as child tasks that post their answers back to the loop.
struct ContinueScreen {
    /// What the loop reacts to.
    enum Event: Sendable {
        case action(SearchScreenState.Action)
        case resized
        case quit
    }

    let terminal: Terminal
    let client: ServiceClient

    /// Shows the screen until the person quits; the terminal is restored before returning.
    func run(first state: SearchScreenState) async throws {
        let (events, sink) = AsyncStream<Event>.makeStream()
        try terminal.enterFullScreen()
        defer { terminal.restore() }
        let reader = KeyReader(terminal: terminal, sink: sink)
        reader.start()
        let signals = Self.watchSignals(sink)
        defer {
            for source in signals { source.cancel() }
            reader.stop()
        }

        var state = state
        terminal.write(SearchScreenRenderer.frame(state, size: terminal.size()))
        await withTaskGroup(of: Void.self) { calls in
            loop: for await event in events {
                switch event {
                case .quit: break loop
                case .resized: terminal.write(ANSI.clearScreen)
                case .action(let action):
                    for effect in state.reduce(action) {
                        if effect == .quit { break loop }
                        calls.addTask { await perform(effect, sink: sink) }
                    }
                }
                terminal.write(SearchScreenRenderer.frame(state, size: terminal.size()))
            }
            calls.cancelAll()
        }
        sink.finish()
    }

    /// Carries out a Search or Resolve and posts the answer.
    private func perform(_ effect: SearchScreenState.Effect, sink: AsyncStream<Event>.Continuation) async {
        switch effect {
        case .search(let request, let generation, let append):
            do {
                let state = try await client.search(request)
                sink.yield(.action(.loaded(state, generation: generation, append: append)))
            } catch {
                sink.yield(.action(.failed(Self.describe(error), generation: generation)))
            }
        case .resolve(let request, let title):
            do {
                let destination = try await client.resolve(request)
                sink.yield(.action(.opened(destination, title: title)))
            } catch {
                sink.yield(.action(.failed(Self.describe(error), generation: nil)))
            }
        case .quit:
            sink.yield(.quit)
        }
    }

    static func describe(_ error: any Error) -> String {
        (error as? RPCError)?.message ?? "\(error)"
    }

    /// SIGWINCH redraws; SIGINT, SIGTERM and SIGHUP quit (and so restore the terminal).
    private static func watchSignals(_ sink: AsyncStream<Event>.Continuation) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "vi-continue.continue.signals")
        return [SIGWINCH, SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { sink.yield(number == SIGWINCH ? .resized : .quit) }
            source.resume()
            return source
        }
    }
}

/// Reads the terminal on its own thread and posts decoded keys.
final class KeyReader: Sendable {
    /// How long an incomplete escape sequence may wait for its rest before it counts as Escape.
    static let escapeWaitMs: Int32 = 40

    private let terminal: Terminal
    private let sink: AsyncStream<ContinueScreen.Event>.Continuation
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    init(terminal: Terminal, sink: AsyncStream<ContinueScreen.Event>.Continuation) {
        self.terminal = terminal
        self.sink = sink
    }

    func start() {
        let thread = Thread { [self] in
            defer { finished.signal() }
            var decoder = KeyDecoder()
            while !stopped.withLock({ $0 }) {
                let timeout: Int32 = decoder.hasPending ? Self.escapeWaitMs : 100
                guard let bytes = terminal.read(timeoutMs: timeout) else {
                    sink.yield(.quit)  // the terminal went away
                    return
                }
                let keys = bytes.isEmpty && decoder.hasPending ? decoder.flush() : decoder.decode(bytes)
                for key in keys { sink.yield(.action(.key(key))) }
            }
        }
        thread.start()
    }

    /// Stops reading and waits for the thread, so no byte is read after the terminal is restored.
    func stop() {
        stopped.withLock { $0 = true }
        finished.wait()
    }
}
