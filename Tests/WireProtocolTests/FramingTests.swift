import Base64Coding
import Testing

@testable import WireProtocol

@Suite struct FramingTests {
    @Test func anIdentityMessageIsPrefixedWithFlagAndBigEndianLength() throws {
        let framed = try Envelope.frame([0xCA, 0xFE, 0xBA, 0xBE, 0x01], compression: .identity)
        #expect(framed == [0x00, 0x00, 0x00, 0x00, 0x05, 0xCA, 0xFE, 0xBA, 0xBE, 0x01])
    }

    @Test func anEmptyMessageIsJustThePrefix() throws {
        #expect(try Envelope.frame([], compression: .identity) == [0, 0, 0, 0, 0])
    }

    @Test func aLongLengthUsesAllFourBytes() throws {
        let framed = try Envelope.frame([UInt8](repeating: 7, count: 0x01_02_03), compression: .identity)
        #expect(Array(framed.prefix(5)) == [0x00, 0x00, 0x01, 0x02, 0x03])
    }

    static let stream: [UInt8] =
        [0, 0, 0, 0, 3, 0x61, 0x62, 0x63]  // "abc"
        + [0, 0, 0, 0, 0]  // empty
        + [1, 0, 0, 0, 2, 0x78, 0x9C]  // compressed flag, 2 bytes

    @Test(arguments: [1, 2, 3, 5, 7, 64])
    func messagesSurviveEveryChunkSplit(chunkSize: Int) throws {
        var deframer = MessageDeframer(maxMessageBytes: 100)
        var got: [(Bool, [UInt8])] = []
        var index = 0
        while index < Self.stream.count {
            let chunk = Array(Self.stream[index..<min(index + chunkSize, Self.stream.count)])
            try deframer.feed(chunk) { compressed, bytes in got.append((compressed, bytes)) }
            index += chunkSize
        }
        try deframer.finish()
        #expect(got.count == 3)
        #expect(got[0].0 == false && got[0].1 == Array("abc".utf8))
        #expect(got[1].0 == false && got[1].1 == [])
        #expect(got[2].0 == true && got[2].1 == [0x78, 0x9C])
    }

    @Test func aFlagOtherThanZeroOrOneIsRejected() {
        var deframer = MessageDeframer(maxMessageBytes: 100)
        #expect(throws: DeframingError(code: .badFlag, message: "invalid compressed-flag byte 2")) {
            try deframer.feed([2, 0, 0, 0, 1, 0]) { _, _ in }
        }
    }

    @Test func anOversizedLengthIsRejectedBeforeTheBodyArrives() {
        var deframer = MessageDeframer(maxMessageBytes: 10)
        do {
            try deframer.feed([0, 0, 0, 0, 11]) { _, _ in Issue.record("no message expected") }
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.statusCode == .resourceExhausted)
        }
    }

    @Test(arguments: [[UInt8]([0, 0]), [0, 0, 0, 0, 4, 1, 2]])
    func aStreamEndingInsideAMessageIsTruncated(bytes: [UInt8]) throws {
        var deframer = MessageDeframer(maxMessageBytes: 100)
        try deframer.feed(bytes) { _, _ in }
        #expect(throws: DeframingError.self) { try deframer.finish() }
    }
}

@Suite struct CompressionTests {
    static let plain = Array("hello, grpc! hello, grpc!".utf8)
    /// `zlib.compress(m, 9)` from Python.
    static let zlibGolden: [UInt8] = [
        120, 218, 203, 72, 205, 201, 201, 215, 81, 72, 47, 42, 72, 86, 84, 200, 64, 226, 0, 0, 113, 84, 8, 123,
    ]
    /// `gzip.compress(m, mtime=0)` from Python.
    static let gzipGolden: [UInt8] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 215, 81, 72, 47, 42, 72, 86, 84, 200, 64, 226, 0, 0,
        51, 187, 127, 131, 25, 0, 0, 0,
    ]

    @Test func goldenDeflateBytesFromPythonDecode() throws {
        let out = try MessageDecoder.decode(compressed: true, bytes: Self.zlibGolden, encoding: .deflate, limit: 1000)
        #expect(out == Self.plain)
    }

    @Test func goldenGzipBytesFromPythonDecode() throws {
        let out = try MessageDecoder.decode(compressed: true, bytes: Self.gzipGolden, encoding: .gzip, limit: 1000)
        #expect(out == Self.plain)
    }

    @Test(arguments: [CompressionAlgorithm.gzip, .deflate])
    func compressedMessagesRoundTrip(algorithm: CompressionAlgorithm) throws {
        let message = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 % 17) }
        let framed = try Envelope.frame(message, compression: algorithm)
        #expect(framed[0] == 1)
        #expect(framed.count < message.count)
        var deframer = MessageDeframer(maxMessageBytes: 1 << 20)
        var decoded: [UInt8] = []
        try deframer.feed(framed) { compressed, bytes in
            decoded = try! MessageDecoder.decode(
                compressed: compressed, bytes: bytes, encoding: algorithm, limit: 1 << 20)
        }
        #expect(decoded == message)
    }

    @Test(arguments: [CompressionAlgorithm.gzip, .deflate])
    func pooledStreamsCarryNothingOverFromAFailedMessage(algorithm: CompressionAlgorithm) throws {
        let good = try Envelope.frame(Self.plain, compression: algorithm)
        for _ in 0..<5 {
            #expect(throws: RPCError.self) {
                try MessageDecoder.decode(
                    compressed: true, bytes: Array(good.dropFirst(5).prefix(12)), encoding: algorithm, limit: 1000)
            }
            #expect(throws: RPCError.self) {
                try MessageDecoder.decode(
                    compressed: true, bytes: Array(good.dropFirst(5)), encoding: algorithm, limit: 3)
            }
            let decoded = try MessageDecoder.decode(
                compressed: true, bytes: Array(good.dropFirst(5)), encoding: algorithm, limit: 1000)
            #expect(decoded == Self.plain)
            #expect(try Envelope.frame(Self.plain, compression: algorithm) == good)
        }
    }

    @Test func aZipBombStopsAtTheLimit() throws {
        let bomb = try Envelope.frame([UInt8](repeating: 0, count: 10 << 20), compression: .gzip)
        #expect(bomb.count < 20_000)
        #expect(throws: RPCError.self) {
            try MessageDecoder.decode(
                compressed: true, bytes: Array(bomb.dropFirst(5)), encoding: .gzip, limit: 4 << 20)
        }
        do {
            _ = try MessageDecoder.decode(
                compressed: true, bytes: Array(bomb.dropFirst(5)), encoding: .gzip, limit: 1000)
        } catch {
            #expect(error.code == .resourceExhausted)
        }
    }

    @Test func theCompressedFlagWithoutAnEncodingIsInternal() {
        for encoding in [nil, CompressionAlgorithm.identity] {
            do {
                _ = try MessageDecoder.decode(compressed: true, bytes: [1, 2], encoding: encoding, limit: 10)
                Issue.record("expected an error")
            } catch {
                #expect(error.code == .internalError)
            }
        }
    }

    @Test func corruptOrTruncatedCompressedDataIsInternal() {
        for bytes in [[UInt8](repeating: 0xAB, count: 20), Array(Self.zlibGolden.prefix(10))] {
            do {
                _ = try MessageDecoder.decode(compressed: true, bytes: bytes, encoding: .deflate, limit: 1000)
                Issue.record("expected an error")
            } catch {
                #expect(error.code == .internalError)
            }
        }
    }
}

@Suite struct HeaderCodingTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("100% sure", "100%25 sure"),
        ("tab\there", "tab%09here"),
        ("line\r\nbreak", "line%0D%0Abreak"),
        ("snow ☃", "snow %E2%98%83"),
        ("emoji 😀", "emoji %F0%9F%98%80"),
        ("~ and del\u{7F}", "~ and del%7F"),
    ])
    func grpcMessageIsPercentEncoded(plain: String, encoded: String) {
        #expect(String(decoding: PercentEncoding.encode(plain), as: UTF8.self) == encoded)
        #expect(PercentEncoding.decode(encoded) == plain)
    }

    @Test("a message past the trailer's budget is cut before the scalar that crosses it, ending with …")
    func longMessagesAreCut() {
        // ASCII (a byte each), "é" (6 encoded bytes each), "😀" (12): every cut lands between scalars.
        for (unit, encodedSize) in [("a", 1), ("é", 6), ("😀", 12)] {
            let message = "unknown service '" + String(repeating: unit, count: 1 << 20 / unit.utf8.count) + "'"
            let encoded = PercentEncoding.encode(message)
            #expect(encoded.count <= PercentEncoding.maxEncodedBytes + 9)
            #expect(encoded.count > PercentEncoding.maxEncodedBytes - encodedSize + 9 - 1)
            let decoded = PercentEncoding.decode(String(decoding: encoded, as: UTF8.self))
            #expect(decoded.hasSuffix("…"))
            #expect(message.hasPrefix(decoded.dropLast()))
            #expect(!decoded.contains("\u{FFFD}"))
        }
        let fits = String(repeating: "b", count: PercentEncoding.maxEncodedBytes)
        #expect(PercentEncoding.encode(fits) == Array(fits.utf8))
    }

    @Test(arguments: [
        ("bad %zz escape", "bad %zz escape"), ("trailing %4", "trailing %4"), ("%", "%"), ("%FF", "\u{FFFD}"),
    ])
    func badEscapesAreTolerated(input: String, expected: String) {
        #expect(PercentEncoding.decode(input) == expected)
    }

    @Test(arguments: [
        ("1H", Duration.seconds(3600)), ("2M", .seconds(120)), ("3S", .seconds(3)), ("100m", .milliseconds(100)),
        ("5u", .microseconds(5)), ("7n", .nanoseconds(7)), ("99999999S", .seconds(99_999_999)),
        ("00000001m", .milliseconds(1)),
    ])
    func grpcTimeoutParses(text: String, duration: Duration) {
        #expect(GRPCTimeout.parse(text) == duration)
    }

    @Test(arguments: ["", "S", "1", "1s", "123456789S", "-1S", "1.5S", " 1S", "1 S", "1X"])
    func malformedGrpcTimeoutIsRejected(text: String) {
        #expect(GRPCTimeout.parse(text) == nil)
    }

    @Test(arguments: [
        (Duration.milliseconds(100), "100000u"), (.milliseconds(99), "99000000n"), (.seconds(1), "1000000u"),
        (.seconds(1000), "1000000m"),
        (.seconds(200_000), "200000S"), (.zero, "1n"),
    ])
    func grpcTimeoutEncodesInTheFinestUnitThatFits(duration: Duration, text: String) {
        #expect(GRPCTimeout.encode(duration) == text)
        if duration > .zero { #expect(GRPCTimeout.parse(text) == duration) }
    }

    @Test(arguments: [
        ([UInt8](), ""), ([0x66], "Zg"), ([0x66, 0x6F], "Zm8"), ([0x66, 0x6F, 0x6F], "Zm9v"),
        ([0x00, 0xFF, 0xFE, 0x10], "AP/+EA"),
    ])
    func binaryMetadataIsUnpaddedBase64(bytes: [UInt8], text: String) {
        #expect(Base64.encode(bytes, padded: false) == text)
        #expect(Base64.decode(text) == bytes)
    }

    @Test func paddedBase64IsAccepted() {
        #expect(Base64.decode("Zg==") == [0x66])
        #expect(Base64.decode("Zm8=") == [0x66, 0x6F])
        #expect(Base64.decode("AP/+EA==") == [0x00, 0xFF, 0xFE, 0x10])
    }

    @Test(arguments: ["Z", "Zg===", "Z!==", "ab$d"])
    func invalidBase64IsRejected(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func metadataKeysAreLowerCasedAndLookedUpByName() {
        var metadata: Metadata = ["X-Trace": "a"]
        metadata.add("x-trace", "b")
        metadata.add("Blob-Bin", [1, 2, 3])
        #expect(metadata.first(named: "X-TRACE") == .string("a"))
        #expect(metadata.all(named: "x-trace") == [.string("a"), .string("b")])
        metadata.replace("x-trace", "c")
        #expect(metadata.all(named: "x-trace") == [.string("c")])
        #expect(metadata.first(named: "blob-bin") == .binary([1, 2, 3]))
        #expect(metadata.map(\.key) == ["blob-bin", "x-trace"])
    }

    @Test(arguments: [
        ("application/grpc", true), ("application/grpc+proto", true), ("application/grpc;charset=utf-8", true),
        ("application/grpcx", false), ("application/json", false), ("text/plain", false),
    ])
    func contentTypeMustBeGRPC(value: String, accepted: Bool) {
        var value = value
        #expect(value.withUTF8 { ServerStreamStateMachine.isGRPCContentType($0) } == accepted)
    }
}
