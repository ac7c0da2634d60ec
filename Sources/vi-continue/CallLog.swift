import Synchronization
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The per-call log of `serve`: one line on standard error per finished call.
///
/// ```
/// vi-continue: call /vicontinue.v1.VisualSearch/Query OK 0.412ms id=4f1c09a2
/// vi-continue: call /vicontinue.v1.VisualSearch/Search NOT_FOUND 0.090ms id=req-7 message="no session 'x'"
/// ```
///
/// The fields are the method path, the status, the latency (first request HEADERS to status)
/// and the request id: the client's `x-request-id` when it sent one, else a short generated id.
/// At `debug` the peer address is added. The observer runs on the server's event-loop threads,
/// so it takes no lock and writes each line with one `write(2)`, which keeps lines from
/// different threads whole.
struct CallLog: Sendable {
    /// How much is logged: each level includes the ones before it.
    enum Level: Int, Comparable, CaseIterable, Sendable {
        case error, warn, info, debug

        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Parses `error`, `warn`, `info` or `debug`.
        init?(name: String) {
            guard let level = Self.allCases.first(where: { "\($0)" == name }) else { return nil }
            self = level
        }

        /// The level a call with this status is logged at, after the defaults of
        /// go-grpc-middleware's logging interceptor: caller mistakes are `info`, trouble an
        /// operator may need to act on is `warn`, and server faults are `error`.
        init(status code: Status.Code) {
            switch code {
            case .ok, .cancelled, .invalidArgument, .notFound, .alreadyExists, .unauthenticated: self = .info
            case .deadlineExceeded, .permissionDenied, .resourceExhausted, .failedPrecondition, .aborted, .outOfRange,
                .unavailable:
                self = .warn
            default: self = .error
            }
        }
    }

    /// The most verbose level written.
    let level: Level
    /// Where lines go; standard error in `serve`.
    let fd: Int32
    /// Seeds generated request ids so two runs of the server do not repeat each other's ids.
    private let seed: UInt32

    init(level: Level, fd: Int32 = 2) {
        self.level = level
        self.fd = fd
        seed = UInt32.random(in: 0...UInt32.max)
    }

    /// The observer to install in `ServerConfiguration.callObserver`.
    var observer: CallObserver {
        let log = self
        return { record in log.record(record) }
    }

    /// Writes the line for `record` if its status is logged at the configured level.
    func record(_ record: CallRecord) {
        guard Level(status: record.status.code) <= level else { return }
        var line = line(for: record)
        line.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// The bytes of one log line, newline included.
    func line(for record: CallRecord) -> [UInt8] {
        var text = "vi-continue: call "
        text += Self.token(record.path.isEmpty ? "-" : record.path)
        text += " \(record.status.code) "
        text += Self.milliseconds(record.duration)
        text += " id=" + requestID(record.requestMetadata)
        if level == .debug { text += " peer=" + Self.token(record.peer) }
        if record.status.code != .ok, !record.status.message.isEmpty {
            text += " message=" + jsonString(String(record.status.message.prefix(200)))
        }
        text += "\n"
        return Array(text.utf8)
    }

    /// The client's `x-request-id`, else a fresh 8-hex-digit id.
    private func requestID(_ metadata: Metadata) -> String {
        if case .string(let value)? = metadata.first(named: "x-request-id"), !value.isEmpty {
            return Self.token(String(value.prefix(128)))
        }
        // A counter through an odd multiplier is a bijection on 32 bits: ids do not repeat for
        // 4 billion calls, yet neighbouring calls do not look alike.
        let count = UInt32(truncatingIfNeeded: CallLog.counter.wrappingAdd(1, ordering: .relaxed).oldValue)
        let hex = String(seed ^ (count &* 0x9E37_79B1), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    private static let counter = Atomic<UInt64>(0)

    /// `value` as one space-free field: quoted (JSON style) when it holds anything but
    /// printable ASCII without spaces or quotes, so a client cannot forge log lines.
    static func token(_ value: String) -> String {
        let plain = value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }
        return plain ? value : jsonString(value)
    }

    /// A duration as milliseconds with three decimals, such as `12.345ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "ms"
    }
}
