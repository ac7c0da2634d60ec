import Testing

@testable import WireProtocol

/// `grpc-accept-encoding` as a server reads it: the names it knows, in the header's order.
@Suite struct AcceptEncodingTests {
    @Test func knownNamesAreReadInOrderWithBlanksAroundThem() {
        #expect(ServerConnection.parseAcceptEncoding("identity, deflate, gzip") == [.identity, .deflate, .gzip])
        #expect(ServerConnection.parseAcceptEncoding("gzip,br ,  deflate\t") == [.gzip, .deflate])
        #expect(ServerConnection.parseAcceptEncoding("\tgzip , identity") == [.gzip, .identity])
    }

    @Test func absentEmptyAndUnknownNamesGiveNone() {
        #expect(ServerConnection.parseAcceptEncoding(nil) == [])
        #expect(ServerConnection.parseAcceptEncoding("") == [])
        #expect(ServerConnection.parseAcceptEncoding(" , ,") == [])
        #expect(ServerConnection.parseAcceptEncoding("br, zstd, gzip;q=1, GZIP") == [])
    }
}
