import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmux server on a private socket (`tmux -L NAME`), driven like a person at a terminal.
struct Tmux {
    let socket: String
    static let binary = "/usr/bin/tmux"

    init() {
        socket = "vi-continue-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// Runs one tmux command and returns its standard output.
    ///
    /// Spawned with posix_spawn and reaped with waitpid rather than through `Process`: the tmux
    /// server that new-session forks inherits the client's descriptors, so output goes to a file
    /// (a pipe would never close), every other descriptor is closed in the child, and the exit
    /// status comes straight from the kernel.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "\(socket)-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process: the tmux server lives on, and a pipe another test is
        // waiting on (a CLI's stdin or stdout) would never see its end while the server held it.
        // (glibc's posix_spawn_file_actions_addclosefrom_np, looked up: the Glibc module hides it.)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv = [Self.binary, "-L", socket, "-f", "/dev/null"] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.binary, &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw BuiltProgram.Failure(description: "cannot run tmux: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw BuiltProgram.Failure(description: "tmux \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

    /// Starts a detached session of `columns`×`rows` running `command` in a shell.
    func start(columns: Int, rows: Int, command: String) throws {
        try run(["new-session", "-d", "-s", "t", "-x", "\(columns)", "-y", "\(rows)", command])
    }

    /// Types keys (tmux key names such as `Tab`, `Enter`, `C-c`, or plain characters).
    func send(_ keys: String...) throws {
        try run(["send-keys", "-t", "t"] + keys)
    }

    /// The visible screen, one string per row.
    func screen() throws -> [String] {
        try run(["capture-pane", "-p", "-t", "t"]).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
    }

    /// Polls the screen until `condition` holds, or fails after `seconds` with the last screen.
    func waitFor(
        _ what: String, seconds: Double = 60, _ condition: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String] = []
        // The screen is read once more after the deadline: on a loaded machine the sleep itself
        // can outlast the deadline, and giving up on a stale screen would blame the program.
        while true {
            last = try screen()
            if condition(last) { return last }
            if Date() >= deadline { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BuiltProgram.Failure(
            description: "timed out waiting for \(what); the screen was:\n" + last.joined(separator: "\n"))
    }

    /// Stops the private server and everything running in it. `kill-server` alone was seen to
    /// leave a detached server behind, so any process still naming this socket is killed too.
    func kill() {
        _ = try? run(["kill-server"])
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = Int32(entry), pid != getpid(),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: cmdline, as: UTF8.self).contains(socket)
            else { continue }
            Glibc.kill(pid, SIGKILL)
        }
    }
}
