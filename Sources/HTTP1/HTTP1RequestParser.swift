/// An HTTP/1.1 request parser that performs no I/O: bytes go in as they arrive, request heads,
/// body bytes and message ends come out, on one connection, pipelined requests included.
///
/// It is strict where leniency lets two parsers read one byte stream differently (request
/// smuggling, RFC 9112 §11.2): lines end in CRLF only; no whitespace before a field's colon; no
/// obsolete line folding; no control characters in values; one Host; Content-Length digits only
/// and not beside Transfer-Encoding; no transfer coding but `chunked`, and none on HTTP/1.0.
/// Sizes are capped so a peer cannot make it hold unbounded bytes. After an error it accepts
/// nothing more: the connection has to be answered and closed.
public struct HTTP1RequestParser: Sendable {
    /// What the parser will hold.
    public struct Limits: Sendable, Hashable {
        /// The request line's bytes (414 above).
        public var requestLine = 8 * 1024
        /// The head's bytes, request line and fields (431 above).
        public var head = 16 * 1024
        /// The number of header fields (431 above).
        public var fields = 100
        /// One request's body bytes (413 above).
        public var body = 8 * 1024 * 1024
        /// A chunk-size line, extensions included (400 above).
        public var chunkLine = 1024
        /// The trailer section of a chunked body (431 above).
        public var trailers = 8 * 1024

        public init() {}
    }

    /// What came out of the bytes fed.
    public enum Event: Sendable, Hashable {
        case head(HTTP1RequestHead)
        case body([UInt8])
        /// The request's last byte: the next bytes start a new request.
        case end
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTP1ParseError)
    }

    public let limits: Limits
    private var state = State.head
    /// Bytes received but not yet taken by the state.
    private var pending: [UInt8] = []
    /// How far `pending` was already searched for the end of the head or line.
    private var scanned = 0
    /// The current request's body bytes so far (chunked).
    private var bodyBytes = 0
    /// Whether the request line in `pending` is known to end within its limit (checked once).
    private var requestLineFits = false
    /// The current request's trailer bytes so far.
    private var trailerBytes = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Whether the parser is between requests with nothing buffered: an idle connection.
    public var isIdle: Bool {
        if case .head = state { return pending.isEmpty }
        return false
    }

    /// Whether a request's head has started arriving but is not complete: the state a
    /// slow-header attack keeps a connection in, which the transport bounds with a deadline.
    public var isReadingHead: Bool {
        if case .head = state { return !pending.isEmpty }
        return false
    }

    /// Takes the bytes that arrived and returns what they complete.
    ///
    /// - Throws: ``HTTP1ParseError``; every later call throws it again.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTP1ParseError) -> [Event] {
        if case .failed(let error) = state { throw error }
        pending.append(contentsOf: bytes)
        var events = [Event]()
        do {
            while try step(into: &events) {}
        } catch {
            state = .failed(error)
            pending = []
            throw error
        }
        return events
    }

    /// The peer closed its side: an error when it stopped inside a request.
    public mutating func finish() throws(HTTP1ParseError) {
        if case .failed(let error) = state { throw error }
        guard isIdle else {
            let error = HTTP1ParseError(status: 400, reason: "the connection closed inside a request")
            state = .failed(error)
            throw error
        }
    }

    /// Advances by one piece (a head, some body, a chunk line); `false` when it needs more bytes.
    private mutating func step(into events: inout [Event]) throws(HTTP1ParseError) -> Bool {
        switch state {
        case .failed(let error):
            throw error
        case .head:
            guard let head = try takeHead() else { return false }
            events.append(.head(head))
            bodyBytes = 0
            trailerBytes = 0
            switch head.body {
            case .none:
                events.append(.end)
            case .length(let count):
                state = .fixedBody(remaining: count)
            case .chunked:
                state = .chunkSize
            }
            return true
        case .fixedBody(let remaining):
            guard !pending.isEmpty else { return false }
            let count = min(remaining, pending.count)
            events.append(.body(Array(pending[..<count])))
            consume(count)
            if count == remaining {
                events.append(.end)
                state = .head
            } else {
                state = .fixedBody(remaining: remaining - count)
            }
            return true
        case .chunkSize:
            guard let line = try takeLine(limit: limits.chunkLine, what: "a chunk-size line", status: 400) else {
                return false
            }
            let size = try chunkSize(line)
            if size == 0 {
                state = .trailers
            } else {
                guard size <= limits.body - bodyBytes else { throw tooLarge() }
                bodyBytes += size
                state = .chunkData(remaining: size)
            }
            return true
        case .chunkData(let remaining):
            guard !pending.isEmpty else { return false }
            let count = min(remaining, pending.count)
            events.append(.body(Array(pending[..<count])))
            consume(count)
            state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            return true
        case .chunkDataEnd:
            guard pending.count >= 2 else { return false }
            guard pending[0] == cr, pending[1] == lf else {
                throw HTTP1ParseError(status: 400, reason: "chunk data longer than its size")
            }
            consume(2)
            state = .chunkSize
            return true
        case .trailers:
            // Trailer fields are read for their framing and dropped: nothing here uses them.
            guard let line = try takeLine(limit: limits.trailers, what: "the trailer section", status: 431) else {
                return false
            }
            trailerBytes += line.count + 2
            guard trailerBytes <= limits.trailers else {
                throw HTTP1ParseError(
                    status: 431, reason: "the trailer section is longer than \(limits.trailers) bytes")
            }
            if line.isEmpty {
                events.append(.end)
                state = .head
            } else {
                _ = try field(line)
            }
            return true
        }
    }

    // MARK: - The head

    /// The next request head, when all of it has arrived.
    private mutating func takeHead() throws(HTTP1ParseError) -> HTTP1RequestHead? {
        // Empty lines before a request line are skipped (RFC 9112 §2.2), as after a body some
        // clients send an extra CRLF.
        while pending.count >= 2 && pending[0] == cr && pending[1] == lf { consume(2) }
        if pending.count == 1 && pending[0] == cr { return nil }
        if !requestLineFits && pending.count > limits.requestLine {
            guard let end = firstLineEnd(), end <= limits.requestLine else {
                throw HTTP1ParseError(
                    status: 414, reason: "the request line is longer than \(limits.requestLine) bytes")
            }
            requestLineFits = true
        }
        guard let end = headEnd() else {
            if pending.count > limits.head {
                throw HTTP1ParseError(status: 431, reason: "the request head is longer than \(limits.head) bytes")
            }
            return nil
        }
        guard end <= limits.head else {
            throw HTTP1ParseError(status: 431, reason: "the request head is longer than \(limits.head) bytes")
        }
        let lines = splitLines(pending[..<end])
        consume(end + 4)
        return try head(lines)
    }

    /// Where the head's CRLF CRLF starts, searching only bytes not searched before.
    private mutating func headEnd() -> Int? {
        var index = max(0, scanned - 3)
        while index + 3 < pending.count {
            if pending[index] == cr && pending[index + 1] == lf && pending[index + 2] == cr && pending[index + 3] == lf
            {
                scanned = 0
                return index
            }
            index += 1
        }
        scanned = pending.count
        return nil
    }

    private func firstLineEnd() -> Int? {
        var index = 0
        while index + 1 < pending.count {
            if pending[index] == cr && pending[index + 1] == lf { return index }
            index += 1
        }
        return nil
    }

    private func splitLines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines = [ArraySlice<UInt8>]()
        var start = bytes.startIndex
        var index = start
        while index + 1 < bytes.endIndex {
            if bytes[index] == cr && bytes[index + 1] == lf {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[start..<bytes.endIndex])
        return lines
    }

    private func head(_ lines: [ArraySlice<UInt8>]) throws(HTTP1ParseError) -> HTTP1RequestHead {
        let (method, target, minorVersion) = try requestLine(lines[0])
        guard lines.count - 1 <= limits.fields else {
            throw HTTP1ParseError(status: 431, reason: "more than \(limits.fields) header fields")
        }
        var fields = [HTTP1RequestHead.Field]()
        fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() { fields.append(try field(line)) }
        return try meaning(method: method, target: target, minorVersion: minorVersion, fields: fields)
    }

    private func requestLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (String, String, Int) {
        let parts = line.split(separator: space, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw HTTP1ParseError(status: 400, reason: "the request line is not `METHOD TARGET HTTP/1.1`")
        }
        guard parts[0].allSatisfy(isTokenByte) else {
            throw HTTP1ParseError(status: 400, reason: "the method is not a token")
        }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTP1ParseError(status: 400, reason: "the request target has a byte outside visible ASCII")
        }
        let version = Array(parts[2])
        let prefix = Array("HTTP/".utf8)
        guard version.count == 8, Array(version[..<5]) == prefix, isDigit(version[5]), version[6] == dot,
            isDigit(version[7])
        else {
            throw HTTP1ParseError(status: 400, reason: "the request line does not end in an HTTP version")
        }
        guard version[5] == UInt8(ascii: "1") else {
            throw HTTP1ParseError(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are spoken in this form")
        }
        return (
            String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
            Int(version[7] - UInt8(ascii: "0"))
        )
    }

    private func field(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> HTTP1RequestHead.Field {
        guard let first = line.first, first != space, first != tab else {
            throw HTTP1ParseError(status: 400, reason: "a header line starts with whitespace (obsolete line folding)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTP1ParseError(status: 400, reason: "a header line has no colon")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw HTTP1ParseError(
                status: 400, reason: "a header name is not a token (no whitespace before the colon)")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
        while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == tab }) else {
            throw HTTP1ParseError(status: 400, reason: "a header value has a control character")
        }
        return HTTP1RequestHead.Field(
            name: String(decoding: name, as: UTF8.self).lowercased(), value: String(decoding: value, as: UTF8.self))
    }

    /// What the fields say about framing and the connection, refusing what is ambiguous.
    private func meaning(
        method: String, target: String, minorVersion: Int, fields: [HTTP1RequestHead.Field]
    ) throws(HTTP1ParseError) -> HTTP1RequestHead {
        var hosts = 0
        var lengths = [String]()
        var codings = [String]()
        var connection = [String]()
        var expectations = [String]()
        for field in fields {
            switch field.name {
            case "host": hosts += 1
            case "content-length": lengths.append(field.value)
            case "transfer-encoding": codings += tokens(field.value)
            case "connection": connection += tokens(field.value)
            case "expect": expectations += tokens(field.value)
            default: break
            }
        }
        if minorVersion == 1 && hosts != 1 {
            throw HTTP1ParseError(status: 400, reason: hosts == 0 ? "no Host field" : "more than one Host field")
        }
        if hosts > 1 { throw HTTP1ParseError(status: 400, reason: "more than one Host field") }
        var body = HTTP1RequestHead.BodyFraming.none
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw HTTP1ParseError(status: 400, reason: "both Content-Length and Transfer-Encoding")
            }
            guard minorVersion == 1 else {
                throw HTTP1ParseError(status: 400, reason: "Transfer-Encoding in an HTTP/1.0 request")
            }
            guard codings == ["chunked"] else {
                throw HTTP1ParseError(
                    status: 501,
                    reason: "transfer coding \(codings.joined(separator: ", ")) (only chunked is supported)")
            }
            body = .chunked
        } else if !lengths.isEmpty {
            guard lengths.count == 1, let length = lengths[0].utf8.count <= 18 ? Int(lengths[0]) : nil,
                lengths[0].utf8.allSatisfy(isDigit)
            else {
                throw HTTP1ParseError(status: 400, reason: "Content-Length is not one decimal number")
            }
            guard length <= limits.body else { throw tooLarge() }
            body = length == 0 ? .none : .length(length)
        }
        var expectsContinue = false
        for expectation in expectations {
            guard expectation == "100-continue" else {
                throw HTTP1ParseError(status: 417, reason: "Expect: \(expectation) is not supported")
            }
            expectsContinue = true
        }
        let keepAlive =
            minorVersion == 1 ? !connection.contains("close") : connection.contains("keep-alive")
        return HTTP1RequestHead(
            method: method, target: target, minorVersion: minorVersion, fields: fields, body: body,
            keepAlive: keepAlive, expectsContinue: expectsContinue)
    }

    /// A comma-separated list's elements, lowercased and trimmed; empty elements dropped.
    private func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
    }

    // MARK: - Chunks

    /// The next CRLF-terminated line, without its CRLF, when it has arrived.
    private mutating func takeLine(limit: Int, what: String, status: Int) throws(HTTP1ParseError) -> ArraySlice<UInt8>?
    {
        var index = max(0, scanned - 1)
        while index + 1 < pending.count {
            if pending[index] == cr && pending[index + 1] == lf {
                guard index <= limit else { break }
                let line = pending[..<index]
                let copy = Array(line)[...]
                consume(index + 2)
                return copy
            }
            index += 1
        }
        scanned = pending.count
        if pending.count > limit {
            throw HTTP1ParseError(status: status, reason: "\(what) is longer than \(limit) bytes")
        }
        return nil
    }

    /// A chunk-size line's size; extensions after `;` are skipped.
    private func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> Int {
        let digits = line.prefix { isHexDigit($0) }
        let rest = line[digits.endIndex...]
        guard !digits.isEmpty, digits.count <= 15,
            rest.isEmpty || rest.first == UInt8(ascii: ";") || rest.first == space
                || rest.first == tab,
            rest.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == tab }),
            let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
        else {
            throw HTTP1ParseError(status: 400, reason: "a chunk size is not a hexadecimal number")
        }
        return size
    }

    private func tooLarge() -> HTTP1ParseError {
        HTTP1ParseError(status: 413, reason: "the body is larger than \(limits.body) bytes")
    }

    private mutating func consume(_ count: Int) {
        pending.removeFirst(count)
        scanned = 0
        requestLineFits = false
    }
}

private let cr: UInt8 = 0x0D
private let lf: UInt8 = 0x0A
private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let dot = UInt8(ascii: ".")

private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
}

/// tchar of RFC 9110 §5.6.2.
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x30...0x39: true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
        UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        true
    default: false
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
