import DeepLinkRouter
import Testing

@Suite struct URLParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var href: String
        var expected: [String: String] = [:]
        var testDescription: String { input.debugDescription }
    }

    static let valid: [Case] = [
        Case(
            input: #"https://example.com\@evil.test/"#, href: "https://example.com/@evil.test/",
            expected: ["hostname": "example.com", "pathname": "/@evil.test/", "username": ""]),
        Case(
            input: "https://example.com@evil.test/", href: "https://example.com@evil.test/",
            expected: ["hostname": "evil.test", "username": "example.com"]),
        Case(input: "http://0x7f.1/", href: "http://127.0.0.1/", expected: ["host": "127.0.0.1"]),
        Case(input: "http://0300.0250.0.1/", href: "http://192.168.0.1/"),
        Case(input: "http://2130706433/", href: "http://127.0.0.1/"),
        Case(input: "http://1.2.3/", href: "http://1.2.0.3/"),
        Case(input: "http://127.1./", href: "http://127.0.0.1/"),
        Case(
            input: "http://[::1]:8080/a", href: "http://[::1]:8080/a",
            expected: ["host": "[::1]:8080", "hostname": "[::1]", "port": "8080"]),
        Case(input: "http://[2001:DB8:0:0:0:0:0:1]/", href: "http://[2001:db8::1]/"),
        Case(input: "http://[::ffff:192.168.0.1]/", href: "http://[::ffff:c0a8:1]/"),
        Case(input: "http://[1:0:0:2:0:0:0:3]/", href: "http://[1:0:0:2::3]/"),
        Case(input: "https://EXAMPLE.com:443/", href: "https://example.com/", expected: ["port": ""]),
        Case(input: "http://example.com:0080/", href: "http://example.com/", expected: ["port": ""]),
        Case(input: "http://example.com:/", href: "http://example.com/"),
        Case(input: "http://example.com:8080", href: "http://example.com:8080/", expected: ["port": "8080"]),
        Case(input: "web+demo://host:123/p", href: "web+demo://host:123/p", expected: ["port": "123"]),
        Case(input: "http://a/b/c/./../../g", href: "http://a/g", expected: ["pathname": "/g"]),
        Case(input: "http://a/b/%2e%2E/c", href: "http://a/c"),
        Case(input: "http://a/b/.%2e", href: "http://a/"),
        Case(input: "http://example.com/a/..", href: "http://example.com/"),
        Case(input: "http://example.com/a/.", href: "http://example.com/a/"),
        Case(input: #"http:\\example.com\a\b"#, href: "http://example.com/a/b"),
        Case(input: "http:/example.com/", href: "http://example.com/"),
        Case(input: "http:example.com/", href: "http://example.com/"),
        Case(
            input: "https://user:pa ss@example.com/", href: "https://user:pa%20ss@example.com/",
            expected: ["username": "user", "password": "pa%20ss"]),
        Case(
            input: "http://a:b@c:d@e/", href: "http://a:b%40c%3Ad@e/",
            expected: ["username": "a", "password": "b%40c%3Ad", "hostname": "e"]),
        Case(input: "http://user:@host/", href: "http://user@host/", expected: ["password": ""]),
        Case(input: "http://@host/", href: "http://host/"),
        Case(
            input: "music://album/42?tab=tracks#top", href: "music://album/42?tab=tracks#top",
            expected: [
                "protocol": "music:", "host": "album", "hostname": "album", "pathname": "/42",
                "search": "?tab=tracks", "hash": "#top",
            ]),
        Case(input: "MUSIC://Album/42", href: "music://Album/42", expected: ["hostname": "Album"]),
        Case(input: "music://album/a/../b", href: "music://album/b"),
        Case(input: "music://", href: "music://", expected: ["hostname": "", "pathname": ""]),
        Case(input: "music:///42", href: "music:///42", expected: ["hostname": "", "pathname": "/42"]),
        Case(
            input: "javascript:alert(1)", href: "javascript:alert(1)",
            expected: ["protocol": "javascript:", "pathname": "alert(1)", "host": ""]),
        Case(input: "mailto:a@b.c?subject=hi there", href: "mailto:a@b.c?subject=hi%20there"),
        Case(input: "foo:/.//bar", href: "foo:/.//bar", expected: ["pathname": "//bar"]),
        Case(input: "foo://[::1]/", href: "foo://[::1]/"),
        Case(input: "http://ex%41mple.com/", href: "http://example.com/"),
        Case(input: "http://example.com./", href: "http://example.com./"),
        Case(input: "  http://example.com/\t\na \u{1}", href: "http://example.com/a"),
        Case(
            input: "https://example.com/a b?c d#e f", href: "https://example.com/a%20b?c%20d#e%20f",
            expected: ["pathname": "/a%20b", "search": "?c%20d", "hash": "#e%20f"]),
        Case(input: "https://example.com/?'", href: "https://example.com/?%27"),
        Case(input: "music://x/?'", href: "music://x/?'"),
        Case(input: "http://example.com/%zz%2F", href: "http://example.com/%zz%2F"),
        Case(input: "http://example.com/caf\u{E9}^{x}", href: "http://example.com/caf%C3%A9%5E%7Bx%7D"),
        Case(input: "http://example.com/?", href: "http://example.com/?", expected: ["search": ""]),
        Case(input: "http://example.com/#", href: "http://example.com/#", expected: ["hash": ""]),
        Case(input: "file:///C|/x", href: "file:///C:/x"),
        Case(input: "file://localhost/etc", href: "file:///etc", expected: ["host": ""]),
        Case(input: "file:/x/../../y", href: "file:///y"),
        Case(input: "file://server/share", href: "file://server/share", expected: ["hostname": "server"]),
    ]

    @Test("Valid inputs give the Standard's components", arguments: valid)
    func validInputs(_ testCase: Case) throws {
        let url = try URLParser().parse(testCase.input)
        #expect(url.href == testCase.href)
        let components = Dictionary(uniqueKeysWithValues: url.components.map { ($0.name, $0.value) })
        for (name, value) in testCase.expected {
            #expect(components[name] == value, "\(name)")
        }
        // Parsing is idempotent on its own output.
        #expect(try URLParser().parse(url.href).href == url.href)
    }

    static let invalid: [(String, URLParseError.Code, String)] = [
        ("//example.com", .missingScheme, "missing scheme (relative URLs are not accepted)"),
        ("example", .missingScheme, "missing scheme (relative URLs are not accepted)"),
        ("", .missingScheme, "missing scheme (relative URLs are not accepted)"),
        ("http://", .hostMissing, "missing host"),
        ("http://user@/", .hostMissing, "credentials without a host"),
        ("foo://:80/", .hostMissing, "missing host"),
        ("http://example.com:65536/", .invalidPort, "port out of range"),
        ("http://example.com:8a/", .invalidPort, "invalid port"),
        ("http://exa mple.com/", .invalidHost, "forbidden host code point U+0020"),
        ("http://ex%zzample.com/", .invalidHost, "forbidden host code point '%'"),
        ("http://a<b/", .invalidHost, "forbidden host code point '<'"),
        (#"music://album\x"#, .invalidHost, #"forbidden host code point '\'"#),
        ("foo://a b/", .invalidHost, "forbidden host code point U+0020"),
        ("http://m\u{FC}nchen.de/", .unsupportedIDNA, "non-ASCII host names (IDNA) are not supported"),
        ("http://1.2.3.4.5/", .invalidIPv4, "invalid IPv4 address"),
        ("http://256.0.0.1/", .invalidIPv4, "invalid IPv4 address"),
        ("http://0x100000000/", .invalidIPv4, "invalid IPv4 address"),
        ("http://1.2.3.09/", .invalidIPv4, "invalid IPv4 address"),
        ("http://[::1/", .invalidIPv6, "invalid IPv6 address"),
        ("http://[1:2:3:4:5:6:7:8:9]/", .invalidIPv6, "invalid IPv6 address"),
        ("http://[::1::]/", .invalidIPv6, "invalid IPv6 address"),
        ("http://[::1.2.3]/", .invalidIPv6, "invalid IPv6 address"),
    ]

    @Test("Invalid inputs fail with the exact error", arguments: invalid)
    func invalidInputs(_ input: String, _ code: URLParseError.Code, _ message: String) {
        #expect(throws: URLParseError(code: code, message: message)) { try URLParser().parse(input) }
    }

    @Test func overlongInputIsRefused() {
        let parser = URLParser(maxLength: 100)
        let input = "https://example.com/" + String(repeating: "a", count: 100)
        #expect(throws: URLParseError(code: .tooLong, message: "URL is 120 bytes long; the limit is 100")) {
            try parser.parse(input)
        }
    }

    @Test func hostileBytesNeverCrash() throws {
        var generator = SplitMix64(seed: 7)
        let alphabet = Array(#"ab:/\?#@[]%.2eE 0x1\#u{0}\#u{7F}é😀"#.unicodeScalars)
        for _ in 0..<3000 {
            var input = generator.next() % 2 == 0 ? "http://" : "music:"
            for _ in 0..<(generator.next() % 24) {
                input.unicodeScalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            if let url = try? URLParser().parse(input) {
                #expect(try URLParser().parse(url.href).href == url.href, "\(input.debugDescription)")
            }
        }
    }
}

/// A small deterministic generator so property tests replay exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
