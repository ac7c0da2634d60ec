internal import Synchronization

/// Copies a WAL database's commits into its database file on a background lane, so that no
/// commit waits for the copy.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages: in
/// the sessions store, every ~220th Capture waited for the copy and the database file's fsync.
/// Here the connection that commits has automatic checkpoints off and calls ``committed()``
/// after each commit; every `interval` commits this checkpointer — a second connection, on a
/// background lane of its own — copies the WAL with a PASSIVE checkpoint, which never blocks a
/// writer.
///
/// The WAL starts over from its beginning only when a commit begins with every frame copied,
/// and commits that land during a copy leave frames behind it (on a busy server some land
/// during every copy), so the WAL grows across copies. Once a copy finds it longer than
/// `framesAllowed` frames, ``committed()`` tells the committer to catch up: to checkpoint what
/// landed during that copy itself, between two of its commits (a short copy, but one that holds
/// the next commit back), after which its next commit starts the WAL over. Catching up after
/// every copy kept the WAL smallest but held back one Capture in a hundred
/// (bench/search/README.md, "Twenty-fourth pass").
final class WALCheckpointer: Sendable {
    private let connection: Mutex<SQLiteConnection>
    private let lane: BlockingLane
    private let interval: Int
    private let framesAllowed: Int
    private let state = Mutex(State())

    private struct State {
        var commitsSinceCopy = 0
        var copying = false
        /// A copy found the WAL past `framesAllowed` and the committer has not been told yet.
        var mustCatchUp = false
        var copies = 0
    }

    /// Opens a second connection to the WAL database at `path`, to copy its WAL every
    /// `interval` commits and have the committer catch up once it is past `framesAllowed`.
    init(path: String, interval: Int = 256, framesAllowed: Int = 4_096) throws(SearchError) {
        connection = Mutex(try SQLiteConnection.durable(path: path))
        lane = BlockingLane(label: "vi-continue.checkpoint \(path)", background: true)
        self.interval = interval
        self.framesAllowed = framesAllowed
    }

    /// Counts a commit and starts a copy when one is due and none is running.
    ///
    /// - Returns: `true` once after a copy that found the WAL past `framesAllowed`: the
    ///   committer should then checkpoint what landed during it, between two of its commits.
    func committed() -> Bool {
        let (start, catchUp) = state.withLock { state -> (Bool, Bool) in
            let catchUp = state.mustCatchUp
            state.mustCatchUp = false
            state.commitsSinceCopy += 1
            guard state.commitsSinceCopy >= interval, !state.copying else { return (false, catchUp) }
            state.commitsSinceCopy = 0
            state.copying = true
            return (true, catchUp)
        }
        if start { lane.enqueue { [self] in copy() } }
        return catchUp
    }

    /// Copies finished so far, once the one running (if any) has finished.
    var copiesFinished: Int {
        lane.waitUntilIdle()
        return state.withLock { $0.copies }
    }

    private func copy() {
        let walFrames = connection.withLock { connection in
            // A failed copy (the disk full, say) leaves the frames in the WAL, where they are as
            // durable as in the database file; the next one tries again.
            (try? connection.checkpointPassively()) ?? 0
        }
        state.withLock { state in
            state.copying = false
            state.mustCatchUp = walFrames > framesAllowed
            state.copies += 1
        }
    }
}
