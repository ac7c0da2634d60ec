import Testing

@Suite struct PlaceholderTests {
    @Test func packageBuilds() { #expect(Bool(true)) }
}
