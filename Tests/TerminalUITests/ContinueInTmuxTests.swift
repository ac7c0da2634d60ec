import Foundation
import Testing

/// `vi-continue continue` run for real in tmux against a real `vi-continue serve`, read off the
/// screen as a person would see it.
@Suite(.serialized) struct ContinueInTmuxTests {
    /// The shell line tmux runs: the program, then its exit code and whether the tty is back in
    /// cooked mode with echo (raw mode shows as `-icanon` / `-echo` in `stty -a`).
    static func command(port: Int, arguments: String) -> String {
        "'\(BuiltProgram.executable)' continue \(arguments) --server 127.0.0.1:\(port); echo EXIT=$?; "
            + #"S=$(stty -a); case "$S" in *-icanon*|*" -echo "*) echo TTY=raw;; *) echo TTY=sane;; esac; "#
            + "sleep 120"
    }

    /// The total in the title bar: "… 76 results · sort: …".
    static func total(_ screen: [String]) -> Int? {
        guard let line = screen.first, let range = line.range(of: " results · sort") else { return nil }
        return Int(line[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    /// The right-hand pane of each body row.
    static func filterPane(_ screen: [String]) -> [String] {
        screen.compactMap { line in line.lastIndex(of: "│").map { String(line[line.index(after: $0)...]) } }
    }

    /// The count shown for a facet value, e.g. `[ ] artist      60`.
    static func count(of value: String, in screen: [String]) -> Int? {
        for row in filterPane(screen) {
            let words = row.split(separator: " ")
            guard words.count >= 3, words[0] == "[" || words[0] == "[x]" else { continue }
            let name = words.dropFirst(words[0] == "[" ? 2 : 1).dropLast().joined(separator: " ")
            if name == value { return Int(words.last ?? "") }
        }
        return nil
    }

    /// The position of a value among the pane's toggleable rows (chips and facet values).
    static func rowIndex(of value: String, in screen: [String]) -> Int? {
        let rows = filterPane(screen).filter { $0.hasPrefix(" [ ] ") || $0.hasPrefix(" [x] ") }
        return rows.firstIndex { row in
            row.dropFirst(5).split(separator: " ").dropLast().joined(separator: " ") == value
        }
    }

    @Test("results and facets show; a category toggled changes the counts; m pages; Enter opens; q restores the tty")
    func browseFilterPageOpenQuit() async throws {
        try #require(Tmux.isInstalled, "tmux (Debian package) is not installed")
        let server = try BuiltProgram.Server()
        defer { server.stop() }
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start(columns: 120, rows: 40, command: Self.command(port: server.port, arguments: "--labels band"))

        var screen = try await tmux.waitFor("results and facets") { screen in
            Self.total(screen) != nil && screen.contains { $0.contains("CATEGORY") }
                && screen.contains { $0.contains("Showing 20 of") }
        }
        let total = try #require(Self.total(screen))
        #expect(screen.contains { $0.contains("▸ artist") }, "the cursor sits on the first result")
        #expect(screen[1].contains("● band"))
        let artistsBefore = try #require(Self.count(of: "artist", in: screen))

        // The biggest sub-category that narrows the search: it promises its own count.
        let categories = Self.filterPane(screen).compactMap { row -> (String, Int)? in
            let words = row.split(separator: " ")
            guard words.count == 4, words[0] == "[", words[2].contains("/"), let n = Int(words[3]) else { return nil }
            return (String(words[2]), n)
        }
        let (category, promised) = try #require(categories.filter { $0.1 < total }.max { $0.1 < $1.1 })
        let row = try #require(Self.rowIndex(of: category, in: screen))
        try tmux.send("Tab")
        for _ in 0..<row { try tmux.send("j") }
        try tmux.send("Space")
        // The whole redraw, not only its first lines: a capture can land between a frame's rows
        // (it did on a loaded CI machine).
        screen = try await tmux.waitFor("the category applied") { screen in
            Self.total(screen) == promised && Self.filterPane(screen).contains { $0.hasPrefix(" [x] \(category) ") }
        }
        #expect(screen[2].contains("Filters: category \(category)"))
        #expect(Self.filterPane(screen).contains { $0.hasPrefix(" [x] \(category) ") })
        let artistsAfter = try #require(Self.count(of: "artist", in: screen))
        #expect(artistsAfter != artistsBefore, "the type facet's count followed the category")

        // The next page, with the same category.
        let pageSize = 20
        try tmux.send("Tab", "m")
        let shown = min(promised, 2 * pageSize)
        screen = try await tmux.waitFor("page 2") { $0.contains { $0.contains("Showing \(shown) of \(promised)") } }
        #expect(Self.total(screen) == promised)

        // Open the result under the cursor: its destination, from Resolve.
        try tmux.send("g", "Enter")
        screen = try await tmux.waitFor("the destination") { $0.contains { $0.contains("Open “") } }
        #expect(screen.contains { $0.contains("screen  ") })
        #expect(screen.contains { $0.contains("URL     music://") })
        try tmux.send("Escape")
        screen = try await tmux.waitFor("the overlay closed") { !$0.contains { $0.contains("Open “") } }

        // A resize redraws at the new width.
        try tmux.run(["resize-window", "-t", "t", "-x", "90", "-y", "30"])
        screen = try await tmux.waitFor("the redraw at 90 columns") { screen in
            screen.count >= 30 && screen[0].hasSuffix("sort: relevance") && screen[0].count == 89
        }

        try tmux.send("q")
        screen = try await tmux.waitFor("the exit") { $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("TTY=") } }
        #expect(screen.contains("TTY=sane"), "the terminal is still in raw mode")
        #expect(!screen.contains { $0.contains("Showing ") }, "the alternate screen is still up")
    }

    @Test("Ctrl-C quits cleanly and gives the terminal back")
    func controlC() async throws {
        try #require(Tmux.isInstalled, "tmux (Debian package) is not installed")
        let server = try BuiltProgram.Server()
        defer { server.stop() }
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start(columns: 100, rows: 30, command: Self.command(port: server.port, arguments: "--labels rock"))
        _ = try await tmux.waitFor("results") { $0.contains { $0.contains("Showing ") } }
        try tmux.send("C-c")
        let screen = try await tmux.waitFor("the exit") {
            $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("TTY=") }
        }
        #expect(screen.contains("TTY=sane"))
    }

    @Test("an unknown session is exit 1 with a message, before any screen is drawn")
    func unknownSession() async throws {
        try #require(Tmux.isInstalled, "tmux (Debian package) is not installed")
        let server = try BuiltProgram.Server()
        defer { server.stop() }
        let tmux = Tmux()
        defer { tmux.kill() }
        try tmux.start(
            columns: 100, rows: 30,
            command: Self.command(port: server.port, arguments: "0123456789abcdef0123456789abcdef"))
        let screen = try await tmux.waitFor("the exit") { $0.contains { $0.hasPrefix("TTY=") } }
        #expect(screen.contains("EXIT=1"))
        #expect(screen.contains { $0.hasPrefix("error: ") })
    }

    @Test("without a terminal, continue refuses with exit 2")
    func needsATerminal() throws {
        let result = try BuiltProgram.run(["continue", "--labels", "band", "--server", "127.0.0.1:1"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("needs a terminal"))
    }
}
