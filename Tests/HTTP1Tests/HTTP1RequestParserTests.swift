import HTTP1
import Testing

/// The HTTP/1.1 request parser: framing, pipelining, and the refusals that keep two parsers from
/// reading one byte stream differently.
@Suite struct HTTP1RequestParserTests {
    /// The events of `text` fed in pieces of `piece` bytes (all at once when nil), with
    /// consecutive body pieces joined so that splits do not show.
    static func events(_ text: String, piece: Int? = nil, limits: HTTP1RequestParser.Limits = .init())
        throws(HTTP1ParseError) -> [HTTP1RequestParser.Event]
    {
        var parser = HTTP1RequestParser(limits: limits)
        let bytes = Array(text.utf8)
        var out = [HTTP1RequestParser.Event]()
        var start = 0
        repeat {
            let end = min(bytes.count, start + (piece ?? bytes.count))
            for event in try parser.feed(bytes[start..<end]) {
                if case .body(let more) = event, case .body(let earlier)? = out.last {
                    out[out.count - 1] = .body(earlier + more)
                } else {
                    out.append(event)
                }
            }
            start = end
        } while start < bytes.count
        return out
    }

    static func refusal(_ text: String, limits: HTTP1RequestParser.Limits = .init()) -> HTTP1ParseError? {
        do {
            _ = try events(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static func head(_ events: [HTTP1RequestParser.Event]) -> HTTP1RequestHead? {
        for case .head(let head) in events { return head }
        return nil
    }

    @Test func aGetWithoutBody() throws {
        let events = try Self.events("GET /healthz?verbose=1 HTTP/1.1\r\nHost: localhost\r\nAccept:  */* \r\n\r\n")
        let head = try #require(Self.head(events))
        #expect(events.count == 2 && events.last == .end)
        #expect(head.method == "GET" && head.path == "/healthz" && head.query == "verbose=1")
        #expect(head.fields == [.init(name: "host", value: "localhost"), .init(name: "accept", value: "*/*")])
        #expect(head.keepAlive && head.body == .none && !head.expectsContinue)
    }

    @Test(arguments: [1, 2, 7, 1000]) func aPostsBodyIsTheSameInAnyPieces(_ piece: Int) throws {
        let text =
            "POST /vicontinue.v1.VisualSearch/Query HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
            + "Content-Length: 13\r\n\r\n{\"limit\": 5}\n"
        let events = try Self.events(text, piece: piece)
        #expect(Self.head(events)?.body == .length(13))
        #expect(Array(events.dropFirst()) == [.body(Array("{\"limit\": 5}\n".utf8)), .end])
    }

    @Test(arguments: [1, 3, 1000]) func aChunkedBodyWithExtensionsAndTrailers(_ piece: Int) throws {
        let text =
            "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let events = try Self.events(text, piece: piece)
        #expect(Self.head(events)?.body == .chunked)
        #expect(Array(events.dropFirst()) == [.body(Array("hello, chunked!".utf8)), .end])
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        let text =
            "GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi\r\n"
            + "GET /c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        let events = try Self.events(text)
        let heads = events.compactMap { event -> HTTP1RequestHead? in
            if case .head(let head) = event { return head }
            return nil
        }
        #expect(heads.map(\.target) == ["/a", "/b", "/c"])
        #expect(heads.map(\.keepAlive) == [true, true, false])
        #expect(events.filter { $0 == .end }.count == 3)
    }

    @Test func http10KeepsTheConnectionOnlyWhenAsked() throws {
        #expect(Self.head(try Self.events("GET / HTTP/1.0\r\n\r\n"))?.keepAlive == false)
        #expect(Self.head(try Self.events("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))?.keepAlive == true)
    }

    @Test func expectContinue() throws {
        let head = Self.head(
            try Self.events("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"))
        #expect(head?.expectsContinue == true)
        #expect(Self.refusal("GET / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\n\r\n")?.status == 417)
    }

    /// Framing that two parsers could read differently is refused (RFC 9112 §6.3, §11.2).
    @Test(arguments: [
        ("Content-Length: 5\r\nTransfer-Encoding: chunked", 400),
        ("Transfer-Encoding: chunked\r\nContent-Length: 5", 400),
        ("Content-Length: 5\r\nContent-Length: 6", 400),
        ("Content-Length: 5\r\nContent-Length: 5", 400),
        ("Content-Length: 5, 5", 400),
        ("Content-Length: +5", 400),
        ("Content-Length: 0x5", 400),
        ("Content-Length: 99999999999999999999", 400),
        ("Transfer-Encoding: gzip, chunked", 501),
        ("Transfer-Encoding: chunked, chunked", 501),
        ("Transfer-Encoding: xchunked", 501),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity", 501),
        ("Host : b", 400),
        ("Content-Length : 5", 400),
        (" Content-Length: 5", 400),
        ("X-Folded: a\r\n  b", 400),
        ("X-Bare: a\nContent-Length: 5", 400),
        ("X-Nul: a\u{0}b", 400),
        ("Host: second", 400),
        ("NoColon", 400),
    ]) func ambiguousFramingIsRefused(_ fields: String, _ status: Int) {
        let error = Self.refusal("POST / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n\r\nhello")
        #expect(error?.status == status, "\(fields.debugDescription): \(String(describing: error))")
    }

    @Test func transferEncodingInHTTP10IsRefused() {
        #expect(Self.refusal("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.status == 400)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", 400),  // no Host
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
        ("GET /\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
        ("GET / FTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n", 400),  // TLS on the cleartext port
    ]) func malformedRequestLines(_ text: String, _ status: Int) {
        #expect(Self.refusal(text)?.status == status, "\(text.debugDescription)")
    }

    @Test func chunkFramingErrors() {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(Self.refusal(head + "5\r\nhelloX\r\n0\r\n\r\n")?.reason == "chunk data longer than its size")
        #expect(Self.refusal(head + "fffffffffffffffff\r\n")?.status == 400)
        #expect(Self.refusal(head + "-5\r\nhello\r\n")?.status == 400)
        #expect(Self.refusal(head + "\r\n")?.status == 400)
    }

    @Test func sizesAreCapped() {
        var limits = HTTP1RequestParser.Limits()
        limits.body = 10
        #expect(Self.refusal("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\n")?.status == 414)
        let manyBytes = (0..<200).map { "X-Field-\($0): \(String(repeating: "v", count: 90))\r\n" }.joined()
        #expect(Self.refusal("GET / HTTP/1.1\r\nHost: a\r\n" + manyBytes)?.status == 431)
        let manyFields = (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.refusal("GET / HTTP/1.1\r\nHost: a\r\n" + manyFields + "\r\n")?.status == 431)
        #expect(Self.refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", limits: limits)?.status == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(Self.refusal(chunked + "6\r\nabcdef\r\n5\r\n", limits: limits)?.status == 413)
        #expect(Self.refusal(chunked + String(repeating: "0", count: 2000))?.status == 400)
        let trailers = (0..<700).map { "X-\($0): trailer\r\n" }.joined()
        #expect(Self.refusal(chunked + "0\r\n" + trailers)?.status == 431)
    }

    @Test func anErrorIsFinal() throws {
        var parser = HTTP1RequestParser()
        #expect(throws: HTTP1ParseError.self) { _ = try parser.feed(Array("BAD\r\n\r\n".utf8)) }
        #expect(throws: HTTP1ParseError.self) { _ = try parser.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)) }
    }

    @Test func idleAndHeadStates() throws {
        var parser = HTTP1RequestParser()
        #expect(parser.isIdle && !parser.isReadingHead)
        _ = try parser.feed(Array("GET / HTTP/1.1\r\nHo".utf8))
        #expect(!parser.isIdle && parser.isReadingHead)
        #expect(throws: HTTP1ParseError.self) { try parser.finish() }
        var done = HTTP1RequestParser()
        _ = try done.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n\r\n".utf8))
        #expect(done.isIdle)
        try done.finish()
    }

    @Test func responseHeadsCannotBeSplit() {
        let head = HTTP1ResponseHead(
            status: 400,
            fields: [.init(name: "content-type", value: "text/plain"), .init(name: "x", value: "a\r\nSet-Cookie: b")])
        #expect(
            String(decoding: head.serialized(), as: UTF8.self)
                == "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nx: a  Set-Cookie: b\r\n\r\n")
        #expect(HTTP1Chunked.chunk(Array("hello, chunked!".utf8)) == Array("f\r\nhello, chunked!\r\n".utf8))
        #expect(HTTP1Chunked.chunk([UInt8]()).isEmpty)
    }

    /// Whatever the bytes, feeding them whole or a byte at a time gives the same events or the
    /// same refusal.
    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
    ]) func piecesDoNotChangeTheReading(_ text: String) {
        let whole = Result { () throws(HTTP1ParseError) in try Self.events(text) }
        let bytewise = Result { () throws(HTTP1ParseError) in try Self.events(text, piece: 1) }
        #expect(whole == bytewise)
    }
}
