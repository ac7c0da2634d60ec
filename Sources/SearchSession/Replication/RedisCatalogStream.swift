internal import Synchronization

/// The catalog's shared write log in Redis: a Stream every instance reads in order, and beside it
/// the folded state (each entity's last record) that lets an instance catch up after the stream
/// was trimmed.
///
/// Keys (one hash tag, so a Redis Cluster keeps them in one slot):
///
///     {vi-continue:catalog}:stream    entries 0-N, field "c": the change (CatalogChange+Binary)
///     {vi-continue:catalog}:entities  hash: entity key → its last change (upsert of it, or delete)
///     {vi-continue:catalog}:position  N of the newest entry the hash includes
///     {vi-continue:catalog}:write:ID  a write's position, for an hour: a retried write is not applied twice
///
/// A write runs one Lua script, so Redis applies the entry, the fold and the position as one
/// (with `appendfsync always`, fsynced before it answers). Entry ids are `0-N`: Redis gives each
/// the next sequence number, so N is the log position and the same on every instance.
final class RedisCatalogStream: Sendable {
    let address: RedisAddress
    let keys: Keys
    /// Entries kept in the stream (about: trimmed with `MAXLEN ~`); an instance further behind
    /// catches up from the folded state.
    let retainedEntries: Int

    struct Keys: Sendable {
        let stream: [UInt8]
        let entities: [UInt8]
        let position: [UInt8]
        let writePrefix: String

        init(prefix: String) {
            stream = Array((prefix + ":stream").utf8)
            entities = Array((prefix + ":entities").utf8)
            position = Array((prefix + ":position").utf8)
            writePrefix = prefix + ":write:"
        }
    }

    /// Appends an entry, folds it, records the position; a write id seen before returns its
    /// position and changes nothing (the caller retried after a lost answer).
    static let appendScript = Array(
        """
        local seen = redis.call('GET', KEYS[4])
        if seen then return tonumber(seen) end
        local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '0-*', 'c', ARGV[1])
        local position = tonumber(string.sub(id, 3))
        for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
        redis.call('SET', KEYS[3], position)
        redis.call('SET', KEYS[4], position, 'EX', 3600)
        return position
        """.utf8)

    /// The folded state and its position, read together.
    static let foldedScript = Array(
        """
        return {redis.call('GET', KEYS[2]) or '0', redis.call('HGETALL', KEYS[1])}
        """.utf8)

    init(address: RedisAddress, keyPrefix: String = "{vi-continue:catalog}", retainedEntries: Int = 10_000) {
        self.address = address
        keys = Keys(prefix: keyPrefix)
        self.retainedEntries = retainedEntries
    }

    /// The EVAL that appends `change` as write `writeID`.
    func appendCommand(_ change: CatalogChange, writeID: String) -> [[UInt8]] {
        var command: [[UInt8]] = [
            Array("EVAL".utf8), Self.appendScript, Array("4".utf8), keys.stream, keys.entities, keys.position,
            Array((keys.writePrefix + writeID).utf8), change.encoded(), Array(String(retainedEntries).utf8),
        ]
        switch change {
        case .upsert(let entities):
            for entity in entities {
                command.append(Self.entityKey(entity.ref))
                command.append(CatalogChange.upsert([entity]).encoded())
            }
        case .delete(let refs):
            for ref in refs {
                command.append(Self.entityKey(ref))
                command.append(CatalogChange.delete([ref]).encoded())
            }
        }
        return command
    }

    /// The XREAD that waits up to `block` for entries after `position`; `nil` answers at once.
    func readCommand(after position: UInt64, count: Int, block: Duration?) -> [[UInt8]] {
        var command = [Array("XREAD".utf8), Array("COUNT".utf8), Array(String(count).utf8)]
        if let block { command += [Array("BLOCK".utf8), Array(String(max(1, block.wholeMilliseconds)).utf8)] }
        return command + [Array("STREAMS".utf8), keys.stream, Array("0-\(position)".utf8)]
    }

    /// The EVAL that reads the folded state.
    var foldedCommand: [[UInt8]] {
        [Array("EVAL".utf8), Self.foldedScript, Array("2".utf8), keys.entities, keys.position]
    }

    /// The command that reads the position of the newest entry written.
    var positionCommand: [[UInt8]] { [Array("GET".utf8), keys.position] }

    /// The command that reads the stream's oldest entry.
    var oldestCommand: [[UInt8]] {
        [Array("XRANGE".utf8), keys.stream, Array("-".utf8), Array("+".utf8), Array("COUNT".utf8), Array("1".utf8)]
    }

    /// The hash field of an entity: its type's length first, so no type and id pair reads as another.
    static func entityKey(_ ref: EntityRef) -> [UInt8] {
        Array("\(ref.type.utf8.count):\(ref.type)/\(ref.id)".utf8)
    }

    // MARK: Replies

    /// The position an append returned.
    static func position(appended reply: RedisReply) throws(SearchError) -> UInt64 {
        switch reply {
        case .integer(let value) where value > 0: return UInt64(value)
        case .error(let text):
            throw SearchError(code: .storage, message: "Redis refused the catalog write", cause: text)
        default:
            throw SearchError(code: .storage, message: "Redis answered the catalog write with \(reply)")
        }
    }

    /// The entries of an XREAD reply, in order; empty when the block timed out.
    static func entries(read reply: RedisReply) throws(SearchError) -> [(position: UInt64, change: CatalogChange)] {
        switch reply {
        case .null: return []
        case .error(let text):
            throw SearchError(code: .storage, message: "Redis refused to read the catalog stream", cause: text)
        case .array(let streams):
            guard case .array(let pair)? = streams.first, pair.count == 2, case .array(let items) = pair[1] else {
                return []
            }
            return try items.map { item throws(SearchError) in try entry(item) }
        default:
            throw SearchError(code: .storage, message: "Redis answered XREAD with \(reply)")
        }
    }

    /// The position a GET of the position key answered: 0 before any write.
    static func headPosition(_ reply: RedisReply) throws(SearchError) -> UInt64 {
        switch reply {
        case .null: return 0
        case .bulk(let text):
            if let position = UInt64(String(decoding: text, as: UTF8.self)) { return position }
        default: break
        }
        throw SearchError(code: .storage, message: "Redis answered the catalog log's position with \(reply)")
    }

    /// The position of the oldest entry an XRANGE reply holds, `nil` for an empty stream.
    static func oldestPosition(_ reply: RedisReply) throws(SearchError) -> UInt64? {
        guard case .array(let items) = reply else {
            throw SearchError(code: .storage, message: "Redis answered XRANGE with \(reply)")
        }
        guard let first = items.first else { return nil }
        return try entry(first).position
    }

    /// The folded state: its position, and the changes that rebuild it (the upserts, then the
    /// deletes; each entity is in one of them, as its last record).
    static func folded(_ reply: RedisReply) throws(SearchError) -> (position: UInt64, changes: [CatalogChange]) {
        guard case .array(let parts) = reply, parts.count == 2, case .bulk(let positionText) = parts[0],
            let position = UInt64(String(decoding: positionText, as: UTF8.self)), case .array(let fields) = parts[1]
        else {
            throw SearchError(code: .storage, message: "Redis answered the folded catalog read with \(reply)")
        }
        var upserts = [Entity]()
        var deletes = [EntityRef]()
        for index in stride(from: 1, to: fields.count, by: 2) {
            guard case .bulk(let bytes) = fields[index] else { continue }
            switch try CatalogChange(encoded: bytes, position: position) {
            case .upsert(let entities): upserts += entities
            case .delete(let refs): deletes += refs
            }
        }
        var changes = [CatalogChange]()
        if !upserts.isEmpty { changes.append(.upsert(upserts)) }
        if !deletes.isEmpty { changes.append(.delete(deletes)) }
        return (position, changes)
    }

    private static func entry(_ item: RedisReply) throws(SearchError) -> (position: UInt64, change: CatalogChange) {
        guard case .array(let parts) = item, parts.count == 2, case .bulk(let id) = parts[0],
            case .array(let fields) = parts[1]
        else {
            throw SearchError(code: .storage, message: "the catalog stream holds a malformed entry: \(item)")
        }
        let text = String(decoding: id, as: UTF8.self)
        guard text.hasPrefix("0-"), let position = UInt64(text.dropFirst(2)) else {
            throw SearchError(code: .storage, message: "the catalog stream holds an entry with id \(text), not 0-N")
        }
        var index = 0
        while index + 1 < fields.count {
            if fields[index] == .bulk(Array("c".utf8)), case .bulk(let bytes) = fields[index + 1] {
                return (position, try CatalogChange(encoded: bytes, position: position))
            }
            index += 2
        }
        throw SearchError(code: .storage, message: "the catalog stream's entry \(text) has no change")
    }
}
