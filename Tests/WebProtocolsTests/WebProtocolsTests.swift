import Base64Coding
import HTTP1
import SearchAPI
import Testing
import WebProtocols

/// Connect unary requests, gRPC-Web framing, Connect errors and CORS, without a server: the
/// pieces the transport puts together for browsers and `curl`.
@Suite struct ConnectUnaryTests {
    static func head(_ method: String, _ target: String, _ fields: [(String, String)] = []) -> HTTP1RequestHead {
        HTTP1RequestHead(
            method: method, target: target, minorVersion: 1,
            fields: [.init(name: "host", value: "localhost:8080")] + fields.map { .init(name: $0.0, value: $0.1) },
            body: .none, keepAlive: true, expectsContinue: false)
    }

    @Test func aJSONPost() throws {
        let body = Array(#"{"descriptor":{"labels":[{"text":"jazz"}]},"limit":3}"#.utf8)
        let request = try ConnectUnary.post(
            Self.head(
                "POST", "/vicontinue.v1.VisualSearch/Query",
                [
                    ("content-type", "application/json; charset=utf-8"), ("connect-protocol-version", "1"),
                    ("connect-timeout-ms", "2500"),
                ]),
            body: body)
        #expect(request.codec == .json && request.contentEncoding == "identity" && !request.isGet)
        #expect(request.timeout == .milliseconds(2500))
        #expect(try QueryRequest(jsonBytes: request.message).limit == 3)
    }

    @Test func aGetCarriesItsMessageInTheQuery() throws {
        let json = #"{"url":"demo://album/42"}"#
        let encoded = json.utf8.map { byte -> String in
            let safe = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            return safe ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true)
        }.joined()
        let request = try ConnectUnary.get(
            Self.head("GET", "/vicontinue.v1.VisualSearch/Resolve?connect=v1&encoding=json&message=\(encoded)"))
        #expect(request.isGet && request.codec == .json)
        #expect(try ResolveRequest(jsonBytes: request.message).target == .url("demo://album/42"))

        let proto = QueryRequest(limit: 2).serializedBytes()
        let base64 = Base64.encode(proto, urlSafe: true, padded: false)
        let binary = try ConnectUnary.get(
            Self.head("GET", "/vicontinue.v1.VisualSearch/Query?encoding=proto&base64=1&message=\(base64)"))
        #expect(try QueryRequest(serializedBytes: binary.message).limit == 2)
    }

    @Test(arguments: [
        ("/m?message=%7B%7D", "a GET needs ?encoding=json or ?encoding=proto"),
        ("/m?encoding=xml&message=x", "encoding xml is neither json nor proto"),
        ("/m?encoding=json&message=%ZZ", "the query is not percent-encoded"),
        ("/m?encoding=json&encoding=proto", "the query sets encoding twice"),
        ("/m?encoding=proto&base64=1&message=*", "message is not base64url"),
        ("/m?encoding=json&connect=v2", "connect=v2: only v1 is spoken"),
        ("/m?encoding=json&compression=br", "compression br is not supported (gzip is)"),
    ]) func badGetsAreRefusedWithTheReason(_ target: String, _ reason: String) {
        #expect(throws: ConnectError.self) { try ConnectUnary.get(Self.head("GET", target)) }
        do {
            _ = try ConnectUnary.get(Self.head("GET", target))
        } catch {
            #expect(error.message == reason)
        }
    }

    @Test func badPostHeaders() {
        let bad: [[(String, String)]] = [
            [("content-type", "text/plain")],
            [("content-type", "application/json"), ("connect-protocol-version", "2")],
            [("content-type", "application/json"), ("connect-timeout-ms", "12345678901")],
            [("content-type", "application/json"), ("connect-timeout-ms", "-5")],
        ]
        for fields in bad {
            #expect(throws: ConnectError.self, "\(fields)") {
                try ConnectUnary.post(Self.head("POST", "/m", fields), body: [])
            }
        }
        #expect(ConnectUnary.codec(contentType: "application/proto") == .proto)
        #expect(ConnectUnary.codec(contentType: "application/grpc") == nil)
    }

    @Test func errorsAsConnectSpellsThem() {
        let error = ConnectError(grpcCode: 5, message: #"no entity "album/9""#)
        #expect(error.httpStatus == 404 && error.code == "not_found")
        #expect(
            String(decoding: error.jsonBody(), as: UTF8.self)
                == #"{"code":"not_found","message":"no entity \"album/9\""}"#)
        let statuses = (1...16).map { ConnectError(grpcCode: $0, message: "").httpStatus }
        #expect(statuses == [499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401])
        #expect(
            (1...16).allSatisfy { ConnectError.grpcCode(named: ConnectError(grpcCode: $0, message: "").code) == $0 })
    }
}

@Suite struct GRPCWebTests {
    @Test func framesAndTrailers() {
        #expect(GRPCWeb.messageFrame([7, 8]) == [0, 0, 0, 0, 2, 7, 8])
        let trailers = GRPCWeb.trailerFrame([
            .init(name: "grpc-status", value: "5"), .init(name: "grpc-message", value: "no%20such\r\nx: y"),
        ])
        let block = Array("grpc-status:5\r\ngrpc-message:no%20such  x: y\r\n".utf8)
        #expect(trailers == [0x80, 0, 0, 0, UInt8(block.count)] + block)
    }

    @Test func textModeIsBase64BothWays() throws {
        #expect(GRPCWeb.mode(contentType: "application/grpc-web-text") == .text)
        #expect(GRPCWeb.mode(contentType: "application/grpc-web+proto") == .binary)
        #expect(GRPCWeb.mode(contentType: "application/grpc-web+json") == nil)
        let frames = GRPCWeb.messageFrame([1, 2, 3, 4])
        // A client may flush twice: two padded base64 texts one after the other.
        let sent = Array((Base64.encode(frames.prefix(4)) + Base64.encode(frames.dropFirst(4))).utf8)
        #expect(GRPCWeb.requestFrames(sent, mode: .text) == frames)
        #expect(GRPCWeb.requestFrames(Array("%%%".utf8), mode: .text) == nil)
        #expect(GRPCWeb.responseBytes([0, 0, 0, 0, 0], mode: .text) == Array("AAAAAAA=".utf8))
    }
}

@Suite struct CORSPolicyTests {
    static func head(_ fields: [(String, String)]) -> HTTP1RequestHead {
        ConnectUnaryTests.head("POST", "/m", fields)
    }

    @Test func sameOriginOnlyByDefault() {
        let policy = CORSPolicy()
        #expect(policy.responseFields(for: Self.head([])) == [])
        #expect(
            policy.responseFields(for: Self.head([("origin", "http://localhost:8080")]))?.first?.value
                == "http://localhost:8080")
        #expect(policy.responseFields(for: Self.head([("origin", "http://evil.example")])) == nil)
    }

    @Test func listedOriginsAndPreflight() {
        let policy = CORSPolicy(allowedOrigins: ["https://app.example"])
        let preflight = Self.head([
            ("origin", "https://app.example"), ("access-control-request-method", "POST"),
            ("access-control-request-headers", "content-type, x-grpc-web"),
        ])
        #expect(
            policy.preflightFields(for: preflight)?.contains(
                .init(name: "access-control-allow-methods", value: "GET, POST")) == true)
        let secret = Self.head([
            ("origin", "https://app.example"), ("access-control-request-method", "POST"),
            ("access-control-request-headers", "x-secret"),
        ])
        #expect(policy.preflightFields(for: secret) == nil)
        #expect(CORSPolicy(allowedOrigins: ["*"]).allows(origin: "https://any.example", host: nil))
    }
}

@Suite struct Base64Tests {
    @Test func bothAlphabetsPaddedOrNot() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0x00, 0x01]
        #expect(Base64.encode(bytes) == "+/8AAQ==")
        #expect(Base64.encode(bytes, urlSafe: true, padded: false) == "-_8AAQ")
        #expect(Base64.decode("+/8AAQ==") == bytes && Base64.decode("-_8AAQ") == bytes)
        #expect(Base64.decode("A") == nil && Base64.decode("AA===") == nil && Base64.decode("A A=") == nil)
        for length in 0..<10 {
            let input = (0..<length).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64.decode(Base64.encode(input)) == input)
        }
    }
}
