internal import CHiredis

#if canImport(Glibc)
    internal import Glibc
#endif

/// A blocking hiredis connection with connect and command timeouts.
///
/// Every call blocks its thread for up to the timeout, so it is only ever used from the
/// dedicated thread of ``RedisCommandQueue``, never from the cooperative pool. After an I/O
/// failure hiredis leaves the context unusable: the owner drops it and connects afresh.
final class RedisConnection {
    /// Why a call failed at the connection level (the connection is then dead).
    struct Failure: Error {
        /// What went wrong, for the error message.
        var message: String
        /// Whether the server stopped answering in time, rather than refusing or closing: a
        /// timed-out command must not be retried, or a hung server would cost twice the timeout.
        var timedOut: Bool
    }

    private let context: UnsafeMutablePointer<redisContext>

    /// Connects, sets the command timeout and selects the database.
    ///
    /// - Parameters:
    ///   - address: The server.
    ///   - connectTimeout: The longest a connect may take.
    ///   - commandTimeout: The longest a read or write of a command may block.
    /// - Throws: ``Failure`` when the server cannot be reached or refuses `SELECT`.
    init(address: RedisAddress, connectTimeout: Duration, commandTimeout: Duration) throws(Failure) {
        _ = Self.ignoreSIGPIPE
        let made: UnsafeMutablePointer<redisContext>?
        switch address.endpoint {
        case .tcp(let host, let port):
            made = redisConnectWithTimeout(host, Int32(port), Self.timeval(connectTimeout))
        case .unix(let path):
            made = redisConnectUnixWithTimeout(path, Self.timeval(connectTimeout))
        }
        guard let made else { throw Failure(message: "out of memory", timedOut: false) }
        if made.pointee.err != 0 {
            let failure = Self.failure(of: made)
            redisFree(made)
            throw failure
        }
        context = made
        if redisSetTimeout(context, Self.timeval(commandTimeout)) != REDIS_OK {
            throw Self.failure(of: context)
        }
        if address.database != 0 {
            let reply = try pipeline([[Array("SELECT".utf8), Array(String(address.database).utf8)]])
            if case .error(let text) = reply.first {
                throw Failure(message: "SELECT \(address.database): \(text)", timedOut: false)
            }
        }
    }

    deinit { redisFree(context) }

    /// Sends every command in one write and reads their replies in order.
    ///
    /// Pipelining costs one round trip for the whole batch instead of one per command.
    ///
    /// - Parameter commands: Commands, each as its arguments (binary-safe).
    /// - Returns: One reply per command; an error reply is a value, not a throw.
    /// - Throws: ``Failure`` when the connection breaks or times out; it is then unusable.
    func pipeline(_ commands: [[[UInt8]]]) throws(Failure) -> [RedisReply] {
        for command in commands {
            try append(command)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw Self.failure(of: context) }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(Self.copy(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    private func append(_ arguments: [[UInt8]]) throws(Failure) {
        // hiredis copies the arguments into its output buffer before returning, so pointers
        // into one flat buffer need only live for the call.
        let flat = arguments.flatMap { $0 }
        let lengths = arguments.map(\.count)
        let rc = flat.withUnsafeBufferPointer { bytes -> Int32 in
            // Every command has at least its name, so the buffer is never empty.
            guard let start = bytes.baseAddress else { return REDIS_ERR }
            let base = UnsafeRawPointer(start)
            var offset = 0
            var argv: [UnsafePointer<CChar>?] = lengths.map { length in
                defer { offset += length }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return lengths.withUnsafeBufferPointer { argvlen in
                redisAppendCommandArgv(context, Int32(argv.count), &argv, argvlen.baseAddress)
            }
        }
        if rc != REDIS_OK { throw Self.failure(of: context) }
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .bulk(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(value.integer))
        case REDIS_REPLY_ARRAY:
            return .array((0..<value.elements).compactMap { i in value.element[i].map(copy) })
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func failure(of context: UnsafeMutablePointer<redisContext>) -> Failure {
        let text = String(cString: chiredis_errstr(context))
        // hiredis reports a socket timeout as an I/O error whose text is strerror(EAGAIN).
        let timedOut =
            context.pointee.err == REDIS_ERR_IO
            && (text == String(cString: strerror(EAGAIN)) || text.contains("timed out"))
        return Failure(message: text.isEmpty ? "connection error \(context.pointee.err)" : text, timedOut: timedOut)
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let parts = duration.components
        return Glibc.timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
    }

    /// hiredis writes with write(2): a server that closed its end must not kill us with SIGPIPE.
    private static let ignoreSIGPIPE: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}
