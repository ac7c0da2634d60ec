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

        /// `error`, `warn`, `info` and `debug`, least verbose first.
        static let names = allCases.map { "\($0)" }

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
        line(for: record).withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// The bytes of one log line, newline included.
    ///
    /// Built byte by byte into one buffer rather than by string interpolation: at `info` this
    /// runs for every call, on the event-loop thread.
    func line(for record: CallRecord) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160)
        line.append(contentsOf: "vi-continue: call ".utf8)
        Self.appendToken(record.path.isEmpty ? "-" : record.path, to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: record.status.code.description.utf8)
        line.append(UInt8(ascii: " "))
        Self.appendMilliseconds(record.duration, to: &line)
        line.append(contentsOf: " id=".utf8)
        appendRequestID(record.requestMetadata, to: &line)
        if level == .debug {
            line.append(contentsOf: " peer=".utf8)
            Self.appendToken(record.peer, to: &line)
        }
        if record.status.code != .ok, !record.status.message.isEmpty {
            line.append(contentsOf: " message=".utf8)
            line.append(contentsOf: jsonString(String(record.status.message.prefix(200))).utf8)
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The client's `x-request-id`, else a fresh 8-hex-digit id.
    private func appendRequestID(_ metadata: Metadata, to line: inout [UInt8]) {
        if case .string(let value)? = metadata.first(named: "x-request-id"), !value.isEmpty {
            Self.appendToken(value.utf8.count > 128 ? String(value.prefix(128)) : value, to: &line)
            return
        }
        // A counter through an odd multiplier is a bijection on 32 bits: ids do not repeat for
        // 4 billion calls, yet neighbouring calls do not look alike.
        let count = UInt32(truncatingIfNeeded: CallLog.counter.wrappingAdd(1, ordering: .relaxed).oldValue)
        let id = seed ^ (count &* 0x9E37_79B1)
        for shift in stride(from: 28, through: 0, by: -4) {
            line.append(Self.hexDigits[Int(id >> UInt32(shift) & 0xF)])
        }
    }

    private static let counter = Atomic<UInt64>(0)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `value` as one space-free field: quoted (JSON style) when it holds anything but
    /// printable ASCII without spaces or quotes, so a client cannot forge log lines.
    static func appendToken(_ value: String, to line: inout [UInt8]) {
        if value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) {
            line.append(contentsOf: value.utf8)
        } else {
            line.append(contentsOf: jsonString(value).utf8)
        }
    }

    /// Appends a duration as milliseconds with three decimals, such as `12.345ms`.
    static func appendMilliseconds(_ duration: Duration, to line: inout [UInt8]) {
        let (seconds, attoseconds) = duration.components
        let micros = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        appendDecimal(micros / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        line.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        line.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        line.append(contentsOf: "ms".utf8)
    }

    private static func appendDecimal(_ value: Int64, to line: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &line) }
        line.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
