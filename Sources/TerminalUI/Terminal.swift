#if canImport(Glibc)
    import Glibc
#endif

/// The controlling terminal: raw mode, the alternate screen, its size, and byte I/O.
///
/// ``enterFullScreen()`` saves the terminal's settings before changing them and ``restore()``
/// puts them back; restore is idempotent, so it can run both from a normal exit and from a
/// signal-driven quit without harm.
public final class Terminal: @unchecked Sendable {
    /// A terminal operation that failed, with the errno text.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let input: Int32
    public let output: Int32
    // Touched only by the thread that owns the screen (enter, restore).
    private var original: termios?

    public init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// Whether both ends are terminals.
    public var isInteractive: Bool { isatty(input) == 1 && isatty(output) == 1 }

    /// Raw input (no echo, no line buffering, no signals from Ctrl-C: it arrives as a key),
    /// the alternate screen and a hidden cursor.
    public func enterFullScreen() throws(Failure) {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { throw Failure(description: "tcgetattr: \(Self.errnoText())") }
        original = settings
        settings.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        settings.c_oflag &= ~tcflag_t(OPOST)
        settings.c_cflag |= tcflag_t(CS8)
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &settings) == 0 else {
            original = nil
            throw Failure(description: "tcsetattr: \(Self.errnoText())")
        }
        write(ANSI.enterAlternateScreen + ANSI.hideCursor + ANSI.clearScreen)
    }

    /// Shows the cursor, leaves the alternate screen and puts the saved settings back.
    public func restore() {
        guard var settings = original else { return }
        original = nil
        write(ANSI.reset + ANSI.showCursor + ANSI.leaveAlternateScreen)
        _ = tcsetattr(input, TCSAFLUSH, &settings)
    }

    /// The window size, or 80×24 when the terminal does not say.
    public func size() -> TerminalSize {
        var window = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 {
            return TerminalSize(rows: Int(window.ws_row), columns: Int(window.ws_col))
        }
        return TerminalSize(rows: 24, columns: 80)
    }

    /// Writes all of `text`.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// Waits up to `timeoutMs` for input and reads what is there.
    ///
    /// - Returns: The bytes read, empty on timeout, nil at end of input or on an error.
    public func read(timeoutMs: Int32) -> [UInt8]? {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMs)
        if ready == 0 || (ready < 0 && errno == EINTR) { return [] }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, $0.count) }
        if count < 0, errno == EINTR || errno == EAGAIN { return [] }
        return count > 0 ? Array(buffer[..<count]) : nil
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
