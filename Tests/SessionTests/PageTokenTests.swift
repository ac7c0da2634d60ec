import Testing

@testable import SearchSession

/// The page token's text: what clients hold between pages, so its form stays put.
@Suite struct PageTokenTests {
    @Test func aTokenIsItsFieldsInUnpaddedURLSafeBase64() {
        #expect(PageToken(version: 7, generation: 3, offset: 40, refinementHash: 0xff).encoded == "cDIuNy4zLjQwLmZm")
        let widest = PageToken(version: .max, generation: 1, offset: 0, refinementHash: 0xdead_beef_cafe)
        #expect(widest.encoded == "cDIuMTg0NDY3NDQwNzM3MDk1NTE2MTUuMS4wLmRlYWRiZWVmY2FmZQ")
    }

    @Test func aTokenReadsBackPaddedOrNot() throws {
        let token = PageToken(version: .max, generation: 1, offset: 0, refinementHash: 0xdead_beef_cafe)
        #expect(try PageToken(decoding: token.encoded) == token)
        #expect(try PageToken(decoding: token.encoded + "==") == token)
    }

    @Test(arguments: ["!!", "", "cDIuNy4zLjQw", String(repeating: "A", count: 204)])
    func aMalformedTokenIsAnInvalidArgument(token: String) {
        #expect(throws: SearchError(code: .invalidArgument, message: "malformed page token")) {
            try PageToken(decoding: token)
        }
    }

    @Test func aTokenOfTheEarlierFormatAsksToStartAgain() {
        let earlier = SearchError(
            code: .catalogChanged, message: "the page token is from an earlier version; start again from page 1")
        #expect(throws: earlier) { try PageToken(decoding: "cDEuMS4yLmFiYw") }
    }
}
