internal import Foundation
internal import Synchronization

/// Sessions in Redis, shared by every instance that points at the same server: any of them can
/// continue a session captured on another.
///
/// Each session is one key, `vi-continue:session:<id>`, holding the record in its binary form
/// (the SQLite store's, see `SessionRecord+Binary.swift`; records an earlier version stored as
/// JSON are read too) and set with `SET … PXAT expiresAt`: Redis itself deletes a
/// session when its time is up, so every instance agrees on expiry and nothing needs purging.
///
/// Durability: `save` returns once Redis has acknowledged the write. That survives the crash of
/// any instance; surviving a crash of Redis itself is Redis's persistence setting (with
/// `appendonly yes` and `appendfsync always`, an acknowledged write has been fsynced).
///
/// When Redis is unreachable every call fails promptly with ``SearchError/Code/storage`` (the
/// service answers UNAVAILABLE) within the connect and command timeouts; the store reconnects
/// with backoff by itself, see ``RedisCommandQueue``.
public final class RedisSessionStore: SessionStore {
    /// Sessions saved since the store was made.
    private let created = Atomic<Int>(0)
    /// The server.
    public var address: RedisAddress { commands.address }
    /// What every session key starts with.
    public let keyPrefix: String
    private let commands: RedisCommandQueue

    /// Creates a store; it connects on first use, so a Redis that is down at startup is no error.
    ///
    /// - Parameters:
    ///   - address: The server.
    ///   - keyPrefix: What every session key starts with (default `vi-continue:session:`).
    ///   - connectTimeout: The longest a connect may take (default 1 s).
    ///   - commandTimeout: The longest Redis may take to answer (default 1 s).
    public init(
        address: RedisAddress, keyPrefix: String = "vi-continue:session:", connectTimeout: Duration = .seconds(1),
        commandTimeout: Duration = .seconds(1)
    ) {
        self.keyPrefix = keyPrefix
        commands = RedisCommandQueue(address: address, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
    }

    public func save(_ record: SessionRecord) async throws(SearchError) {
        let blob = record.encoded()
        // PXAT must be positive; an expiry at or before now makes Redis drop the key at once,
        // which is what an already-expired session deserves.
        let expiry = String(max(record.expiresAtUnixMs, 1))
        let replies = try await commands.execute([
            [Array("SET".utf8), key(record.id), blob, Array("PXAT".utf8), Array(expiry.utf8)]
        ])
        guard case .status("OK") = replies.first else {
            throw refused("SET", replies.first)
        }
        created.add(1, ordering: .relaxed)
    }

    public func load(id: String, nowUnixMs: Int64) async throws(SearchError) -> SessionRecord {
        guard SessionRecord.isWellFormed(id) else { throw .sessionNotFound(id) }
        let replies = try await commands.execute([[Array("GET".utf8), key(id)]])
        let blob: [UInt8]
        switch replies.first {
        case .bulk(let bytes): blob = bytes
        case .null: throw .sessionNotFound(id)
        case let other: throw refused("GET", other)
        }
        let record = try SessionRecord(encoded: blob, id: id)
        // Redis expires keys on its own clock; the caller's clock has the last word.
        guard record.expiresAtUnixMs > nowUnixMs else { throw .sessionNotFound(id) }
        return record
    }

    /// Redis deletes each session at its `PXAT` time, so there is nothing left to purge.
    ///
    /// - Returns: 0.
    /// - Throws: ``SearchError/Code/storage`` when Redis is unreachable, like every other call.
    public func purgeExpired(nowUnixMs: Int64) async throws(SearchError) -> Int {
        try await ping()
        return 0
    }

    /// Checks that Redis answers.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it does not.
    public func ping() async throws(SearchError) {
        let replies = try await commands.execute([[Array("PING".utf8)]])
        guard case .status("PONG") = replies.first else { throw refused("PING", replies.first) }
    }

    /// Sessions created and Redis commands failed by this instance; how many Redis holds is not
    /// counted (it expires them itself, and every instance shares them).
    public var statistics: SessionStoreStatistics {
        SessionStoreStatistics(
            kind: "redis", stored: nil, created: created.load(ordering: .relaxed), purged: 0,
            failedCommands: commands.failedCommands)
    }

    private func key(_ id: String) -> [UInt8] { Array((keyPrefix + id).utf8) }

    private func refused(_ command: String, _ reply: RedisReply?) -> SearchError {
        let detail: String
        switch reply {
        case .error(let text): detail = text
        case let other?: detail = "unexpected reply \(other)"
        case nil: detail = "no reply"
        }
        return SearchError(
            code: .storage, message: "the session store (Redis at \(address)) refused \(command)", cause: detail)
    }
}
