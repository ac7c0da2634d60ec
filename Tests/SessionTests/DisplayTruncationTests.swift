import Testing

@testable import SearchSession

/// A result's title and subtitle are cut to a number of characters (not bytes) with an ellipsis,
/// and only when they are longer.
@Suite struct DisplayTruncationTests {
    @Test func textsUpToTheLimitAreKeptWhole() {
        #expect(SearchEngine.truncate("", 5) == "")
        #expect(SearchEngine.truncate("abcde", 5) == "abcde")
        // Five characters of more than five bytes: é as one scalar, ñ as n and a combining tilde, a
        // family emoji of seven scalars, Japanese.
        #expect(SearchEngine.truncate("é", 1) == "é")
        #expect(SearchEngine.truncate("an\u{303}o👨‍👩‍👧‍👦日", 5) == "an\u{303}o👨‍👩‍👧‍👦日")
    }

    @Test func longerTextsKeepTheirFirstCharactersAndAnEllipsis() {
        #expect(SearchEngine.truncate("abcdef", 5) == "abcd…")
        #expect(SearchEngine.truncate("an\u{303}o👨‍👩‍👧‍👦日本", 5) == "an\u{303}o👨‍👩‍👧‍👦…")
        let description = String(repeating: "salt and water, stir for minutes ", count: 100)
        let cut = SearchEngine.truncate(description, 160)
        #expect(cut.count == 160)
        #expect(cut.hasSuffix("…"))
        #expect(description.hasPrefix(String(cut.dropLast())))
    }
}
