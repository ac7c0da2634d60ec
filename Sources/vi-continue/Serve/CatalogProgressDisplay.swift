import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Shows how a catalog load is going on standard error.
///
/// On a terminal: one line redrawn in place (`\r`) at most ten times a second, and only once the
/// load has taken longer than half a second, so small catalogs print nothing extra. Not on a
/// terminal (logs, CI): no redrawing, just one plain line at the end for loads that took that long.
final class CatalogProgressDisplay {
    private let path: String
    private let isTerminal: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var drewSomething = false

    /// Loads shorter than this show no progress at all.
    private static let quietPeriod = Duration.milliseconds(500)
    private static let redrawInterval = Duration.milliseconds(100)

    init(path: String, isTerminal: Bool = isatty(2) == 1) {
        self.path = path
        self.isTerminal = isTerminal
    }

    /// Takes one progress report from the loader.
    func report(_ progress: CatalogLoadProgress) {
        let now = ContinuousClock.now
        let elapsed = now - started
        let done = progress.bytesRead >= progress.totalBytes
        if done {
            finish(progress, elapsed: elapsed)
            return
        }
        guard isTerminal, elapsed >= Self.quietPeriod else { return }
        if let lastDrawn, now - lastDrawn < Self.redrawInterval { return }
        lastDrawn = now
        drewSomething = true
        writeRaw("\r\u{1B}[K" + Self.line(path: path, progress: progress))
    }

    private func finish(_ progress: CatalogLoadProgress, elapsed: Duration) {
        if isTerminal {
            if drewSomething { writeRaw("\r\u{1B}[K") }
            return
        }
        if elapsed >= Self.quietPeriod {
            writeError("vi-continue: read catalog \(path): \(progress.lines) lines in \(Self.seconds(elapsed)) s")
        }
    }

    /// `loading catalog big.jsonl  42% (41,984 lines)`.
    static func line(path: String, progress: CatalogLoadProgress) -> String {
        let percent = Int((progress.fraction * 100).rounded(.down))
        let width = 24
        let filled = min(width, Int(progress.fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "loading catalog \(path) [\(bar)] \(percent)% (\(grouped(progress.lines)) lines)"
    }

    /// 41984 → `41,984`.
    static func grouped(_ number: Int) -> String {
        var digits = Array(String(number))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }

    private static func seconds(_ duration: Duration) -> String {
        let tenths = Int(duration / .milliseconds(100))
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func writeRaw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
