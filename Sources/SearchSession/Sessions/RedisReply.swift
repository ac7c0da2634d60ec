/// One reply from Redis, copied out of hiredis's reply tree.
enum RedisReply: Hashable, Sendable {
    /// A simple status such as `OK`.
    case status(String)
    /// An error reply such as `WRONGTYPE ...`: the command failed, the connection is fine.
    case error(String)
    /// An integer.
    case integer(Int64)
    /// A bulk string, binary-safe.
    case bulk([UInt8])
    /// The null bulk string or null array: no such key.
    case null
    /// An array of replies.
    indirect case array([RedisReply])
}
