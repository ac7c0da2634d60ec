/// The WHATWG URL parser (no base URL, no state override) over UTF-8 bytes.
///
/// It writes the serialization straight into caller-provided memory and records where each
/// component sits, so resolving a deep link parses without touching the heap.
enum URLCore {
    /// How many output bytes a parse of `inputCount` bytes may need: percent-encoding triples a
    /// byte, and the serializer adds at most a few fixed separators (`//`, `/.`, a port, an IP).
    static func outputCapacity(forInputCount inputCount: Int) -> Int {
        inputCount * 3 + 64
    }

    /// Parses a URL held in a `String`, calling `body` with the serialized bytes and the layout.
    ///
    /// - Parameters:
    ///   - input: The URL as typed or received.
    ///   - maxLength: Inputs longer than this many UTF-8 bytes fail with `.tooLong`.
    ///   - body: Reads the result; the bytes are only valid inside it.
    /// - Returns: What `body` returns.
    /// - Throws: `URLParseError` when the input is not a URL.
    @inline(__always)
    static func withParsed<R>(
        _ input: String, maxLength: Int = Int.max,
        _ body: (UnsafeBufferPointer<UInt8>, URLLayout) -> R
    ) throws(URLParseError) -> R {
        if let result = input.utf8.withContiguousStorageIfAvailable({ parseBytes($0, maxLength, body) }) {
            return try result.get()
        }
        var input = input
        return try input.withUTF8 { parseBytes($0, maxLength, body) }.get()
    }

    @inline(__always)
    static func parseBytes<R>(
        _ utf8: UnsafeBufferPointer<UInt8>, _ maxLength: Int, _ body: (UnsafeBufferPointer<UInt8>, URLLayout) -> R
    ) -> Result<R, URLParseError> {
        if utf8.count > maxLength {
            return .failure(
                URLParseError(
                    code: .tooLong, message: "URL is \(utf8.count) bytes long; the limit is \(maxLength)"))
        }
        if let layout = URLFastPath.layout(utf8) { return .success(body(utf8, layout)) }
        let capacity = outputCapacity(forInputCount: utf8.count) + utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { memory in
            let output = memory.baseAddress!
            let scratch = output + (capacity - utf8.count)
            do throws(URLParseError) {
                let layout = try parse(utf8, output: output, scratch: scratch)
                return .success(body(UnsafeBufferPointer(start: output, count: layout.end), layout))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Parses `raw` into `output`, which must hold `outputCapacity(forInputCount:)` bytes;
    /// `scratch` must hold `raw.count` bytes.
    static func parse(
        _ raw: UnsafeBufferPointer<UInt8>, output: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>
    ) throws(URLParseError) -> URLLayout {
        // Strip leading and trailing C0 controls and spaces; remove tabs and newlines anywhere.
        var start = 0
        var end = raw.count
        while start < end && raw[start] <= 0x20 { start += 1 }
        while end > start && raw[end - 1] <= 0x20 { end -= 1 }
        var needsCleaning = false
        for index in start..<end where raw[index] == 0x09 || raw[index] == 0x0A || raw[index] == 0x0D {
            needsCleaning = true
            break
        }
        let input: UnsafeBufferPointer<UInt8>
        if needsCleaning {
            var count = 0
            for index in start..<end {
                let byte = raw[index]
                if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
                scratch[count] = byte
                count += 1
            }
            input = UnsafeBufferPointer(start: scratch, count: count)
        } else {
            input = UnsafeBufferPointer(rebasing: raw[start..<end])
        }
        var parser = Parser(input: input, out: ByteWriter(base: output))
        try parser.run()
        return parser.layout
    }

    struct Parser {
        let input: UnsafeBufferPointer<UInt8>
        var out: ByteWriter
        var layout = URLLayout()
        var pointer = 0

        init(input: UnsafeBufferPointer<UInt8>, out: ByteWriter) {
            self.input = input
            self.out = out
        }

        var isSpecial: Bool { layout.special != nil }

        @inline(__always)
        func byte(at index: Int) -> UInt8? { index < input.count ? input[index] : nil }

        @inline(__always)
        func isSlash(_ byte: UInt8) -> Bool { byte == 0x2F || (byte == 0x5C && isSpecial) }

        mutating func run() throws(URLParseError) {
            try parseScheme()
            if layout.special == .file {
                try parseFile()
            } else if isSpecial {
                while pointer < input.count && (input[pointer] == 0x2F || input[pointer] == 0x5C) { pointer += 1 }
                try parseAuthority()
                if pointer < input.count && isSlash(input[pointer]) { pointer += 1 }
                parsePath()
            } else if byte(at: pointer) == 0x2F && byte(at: pointer + 1) == 0x2F {
                pointer += 2
                try parseAuthority()
                if byte(at: pointer) == 0x2F {
                    pointer += 1
                    parsePath()
                } else {
                    layout.pathStart = out.count
                    layout.pathEnd = out.count
                }
            } else if byte(at: pointer) == 0x2F {
                pointer += 1
                parsePath()
            } else {
                parseOpaquePath()
            }
            parseQueryAndFragment()
            layout.end = out.count
        }

        mutating func parseScheme() throws(URLParseError) {
            guard let first = byte(at: 0), isASCIIAlpha(first) else {
                throw URLParseError(code: .missingScheme, message: "missing scheme (relative URLs are not accepted)")
            }
            var index = 0
            while index < input.count {
                let byte = input[index]
                if isASCIIAlpha(byte) || isASCIIDigit(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E {
                    out.append(asciiLowercased(byte))
                    index += 1
                } else {
                    break
                }
            }
            guard index < input.count && input[index] == 0x3A else {
                throw URLParseError(code: .missingScheme, message: "missing scheme (relative URLs are not accepted)")
            }
            layout.schemeEnd = out.count
            layout.special = Self.specialScheme(UnsafeBufferPointer(start: out.base, count: out.count))
            out.append(0x3A)
            pointer = index + 1
        }

        static func specialScheme(_ scheme: UnsafeBufferPointer<UInt8>) -> SpecialScheme? {
            switch scheme.count {
            case 2: return scheme[0] == 0x77 && scheme[1] == 0x73 ? .ws : nil
            case 3:
                if scheme[0] == 0x77 && scheme[1] == 0x73 && scheme[2] == 0x73 { return .wss }
                if scheme[0] == 0x66 && scheme[1] == 0x74 && scheme[2] == 0x70 { return .ftp }
                return nil
            case 4:
                if scheme[0] == 0x68 && scheme[1] == 0x74 && scheme[2] == 0x74 && scheme[3] == 0x70 { return .http }
                if scheme[0] == 0x66 && scheme[1] == 0x69 && scheme[2] == 0x6C && scheme[3] == 0x65 { return .file }
                return nil
            case 5:
                return scheme[0] == 0x68 && scheme[1] == 0x74 && scheme[2] == 0x74 && scheme[3] == 0x70
                    && scheme[4] == 0x73 ? .https : nil
            default: return nil
            }
        }

        /// The authority of a URL with `//`: credentials, host and port, ending at the path.
        mutating func parseAuthority() throws(URLParseError) {
            var authorityEnd = pointer
            var atSign = -1
            let special = isSpecial
            while authorityEnd < input.count {
                let byte = input[authorityEnd]
                if byte == 0x2F || byte == 0x3F || byte == 0x23 || (byte == 0x5C && special) { break }
                if byte == 0x40 { atSign = authorityEnd }
                authorityEnd += 1
            }
            var hostStart = pointer
            out.append(0x2F)
            out.append(0x2F)
            layout.hasHost = true
            layout.usernameStart = out.count
            layout.usernameEnd = out.count
            layout.passwordStart = out.count
            layout.passwordEnd = out.count
            if atSign >= 0 {
                if atSign + 1 == authorityEnd {
                    throw URLParseError(code: .hostMissing, message: "credentials without a host")
                }
                var colon = -1
                for index in pointer..<atSign where input[index] == 0x3A {
                    colon = index
                    break
                }
                let usernameEnd = colon >= 0 ? colon : atSign
                for index in pointer..<usernameEnd { out.appendEncoded(input[index], ByteSets.userinfo) }
                layout.usernameEnd = out.count
                if colon >= 0 && colon + 1 < atSign {
                    out.append(0x3A)
                    layout.passwordStart = out.count
                    for index in (colon + 1)..<atSign { out.appendEncoded(input[index], ByteSets.userinfo) }
                    layout.passwordEnd = out.count
                } else {
                    layout.passwordStart = out.count
                    layout.passwordEnd = out.count
                }
                if layout.hasCredentials {
                    out.append(0x40)
                } else {
                    out.count = layout.usernameStart
                    layout.usernameEnd = out.count
                    layout.passwordStart = out.count
                    layout.passwordEnd = out.count
                }
                hostStart = atSign + 1
            }
            // The port starts at the first ':' outside brackets.
            var insideBrackets = false
            var portColon = -1
            for index in hostStart..<authorityEnd {
                let byte = input[index]
                if byte == 0x5B { insideBrackets = true }
                if byte == 0x5D { insideBrackets = false }
                if byte == 0x3A && !insideBrackets {
                    portColon = index
                    break
                }
            }
            let hostEnd = portColon >= 0 ? portColon : authorityEnd
            if hostEnd == hostStart && (isSpecial || portColon >= 0 || atSign >= 0) {
                throw URLParseError(code: .hostMissing, message: "missing host")
            }
            try writeHost(hostStart, hostEnd, special: isSpecial)
            if portColon >= 0 {
                var port = 0
                for index in (portColon + 1)..<authorityEnd {
                    let byte = input[index]
                    guard isASCIIDigit(byte) else {
                        throw URLParseError(code: .invalidPort, message: "invalid port")
                    }
                    port = port * 10 + Int(byte - 0x30)
                    if port > 65535 { throw URLParseError(code: .invalidPort, message: "port out of range") }
                }
                if portColon + 1 < authorityEnd && port != layout.special?.defaultPort {
                    layout.port = port
                    out.append(0x3A)
                    out.appendDecimal(port)
                }
            }
            pointer = authorityEnd
        }

        /// Writes the host of `input[start..<end]`, parsed as the Standard's host parser does.
        mutating func writeHost(_ start: Int, _ end: Int, special: Bool) throws(URLParseError) {
            layout.hostStart = out.count
            defer { layout.hostEnd = out.count }
            if start < end && input[start] == 0x5B {
                guard input[end - 1] == 0x5D, end - start >= 2,
                    let address = HostParsing.parseIPv6(input, start + 1, end - 1)
                else {
                    throw URLParseError(code: .invalidIPv6, message: "invalid IPv6 address")
                }
                out.append(0x5B)
                out.append(contentsOf: HostParsing.serializeIPv6(address))
                out.append(0x5D)
                return
            }
            if !special {
                for index in start..<end {
                    let byte = input[index]
                    if ByteSets.forbiddenHost.contains(byte) {
                        throw URLParseError(
                            code: .invalidHost, message: "forbidden host code point \(Self.describe(byte))")
                    }
                    if byte == 0x25 || byte >= 0x7F || byte < 0x20 { layout.hostOrPathHasPercent = true }
                    out.appendEncoded(byte, ByteSets.c0Control)
                }
                return
            }
            // Domain: percent-decode, refuse non-ASCII (no IDNA), lower-case, check, then IPv4.
            var index = start
            while index < end {
                var byte = input[index]
                if byte == 0x25, index + 2 < end, let high = hexValue(input[index + 1]),
                    let low = hexValue(input[index + 2])
                {
                    byte = high << 4 | low
                    index += 2
                }
                index += 1
                if byte >= 0x80 {
                    throw URLParseError(
                        code: .unsupportedIDNA, message: "non-ASCII host names (IDNA) are not supported")
                }
                if ByteSets.forbiddenDomain.contains(byte) {
                    throw URLParseError(
                        code: .invalidHost, message: "forbidden host code point \(Self.describe(byte))")
                }
                out.append(asciiLowercased(byte))
            }
            if out.count == layout.hostStart {
                throw URLParseError(code: .hostMissing, message: "missing host")
            }
            let host = UnsafeBufferPointer(start: out.base, count: out.count)
            if HostParsing.endsInNumber(host, layout.hostStart, out.count) {
                guard let ipv4 = HostParsing.parseIPv4(host, layout.hostStart, out.count) else {
                    throw URLParseError(code: .invalidIPv4, message: "invalid IPv4 address")
                }
                out.count = layout.hostStart
                for shift in [24, 16, 8, 0] as [UInt32] {
                    out.appendDecimal(Int((ipv4 >> shift) & 0xFF))
                    if shift != 0 { out.append(0x2E) }
                }
            }
        }

        static func describe(_ byte: UInt8) -> String {
            byte >= 0x21 && byte < 0x7F
                ? "'\(String(UnicodeScalar(byte)))'" : "U+\(String(byte, radix: 16, uppercase: true).leftPadded(4))"
        }

        mutating func parseFile() throws(URLParseError) {
            out.append(0x2F)
            out.append(0x2F)
            layout.hasHost = true
            layout.usernameStart = out.count
            layout.usernameEnd = out.count
            layout.passwordStart = out.count
            layout.passwordEnd = out.count
            layout.hostStart = out.count
            layout.hostEnd = out.count
            guard let first = byte(at: pointer), first == 0x2F || first == 0x5C else {
                parsePath()
                return
            }
            pointer += 1
            guard let second = byte(at: pointer), second == 0x2F || second == 0x5C else {
                parsePath()
                return
            }
            pointer += 1
            var hostEnd = pointer
            while hostEnd < input.count {
                let byte = input[hostEnd]
                if byte == 0x2F || byte == 0x5C || byte == 0x3F || byte == 0x23 { break }
                hostEnd += 1
            }
            if isWindowsDriveLetter(pointer, hostEnd) {
                parsePath()
                return
            }
            if hostEnd > pointer {
                try writeHost(pointer, hostEnd, special: true)
                if UnsafeBufferPointer(start: out.base + layout.hostStart, count: out.count - layout.hostStart)
                    .elementsEqual("localhost".utf8)
                {
                    out.count = layout.hostStart
                    layout.hostEnd = out.count
                }
            }
            pointer = hostEnd
            if let next = byte(at: pointer), next == 0x2F || next == 0x5C { pointer += 1 }
            parsePath()
        }

        func isWindowsDriveLetter(_ start: Int, _ end: Int) -> Bool {
            end - start == 2 && isASCIIAlpha(input[start]) && (input[start + 1] == 0x3A || input[start + 1] == 0x7C)
        }

        func isSingleDot(_ start: Int, _ end: Int) -> Bool {
            switch end - start {
            case 1: return input[start] == 0x2E
            case 3: return isEncodedDot(start)
            default: return false
            }
        }

        func isDoubleDot(_ start: Int, _ end: Int) -> Bool {
            switch end - start {
            case 2: return input[start] == 0x2E && input[start + 1] == 0x2E
            case 4:
                return (input[start] == 0x2E && isEncodedDot(start + 1))
                    || (isEncodedDot(start) && input[start + 3] == 0x2E)
            case 6: return isEncodedDot(start) && isEncodedDot(start + 3)
            default: return false
            }
        }

        func isEncodedDot(_ index: Int) -> Bool {
            input[index] == 0x25 && input[index + 1] == 0x32 && (input[index + 2] | 0x20) == 0x65
        }

        /// The path state: segments from `pointer` up to `?`, `#` or the end, with dot segments
        /// resolved and each segment percent-encoded.
        mutating func parsePath() {
            layout.pathStart = out.count
            var pathEnd = pointer
            while pathEnd < input.count && input[pathEnd] != 0x3F && input[pathEnd] != 0x23 { pathEnd += 1 }
            var segmentStart = pointer
            while true {
                var segmentEnd = segmentStart
                while segmentEnd < pathEnd && !isSlash(input[segmentEnd]) { segmentEnd += 1 }
                let endsWithSlash = segmentEnd < pathEnd
                if isDoubleDot(segmentStart, segmentEnd) {
                    shortenPath()
                    if !endsWithSlash { out.append(0x2F) }
                } else if isSingleDot(segmentStart, segmentEnd) {
                    if !endsWithSlash { out.append(0x2F) }
                } else {
                    out.append(0x2F)
                    if layout.special == .file && out.count == layout.pathStart + 1
                        && isWindowsDriveLetter(segmentStart, segmentEnd)
                    {
                        out.append(input[segmentStart])
                        out.append(0x3A)
                    } else {
                        let set = ByteSets.path
                        for index in segmentStart..<segmentEnd {
                            let byte = input[index]
                            if byte == 0x25 || set.encodes(byte) { layout.hostOrPathHasPercent = true }
                            out.appendEncoded(byte, set)
                        }
                    }
                }
                if !endsWithSlash { break }
                segmentStart = segmentEnd + 1
            }
            pointer = pathEnd
            layout.pathEnd = out.count
            // A host-less path starting with an empty segment would read as an authority: the
            // serializer prefixes "/.".
            if !layout.hasHost && out.count - layout.pathStart >= 2 && out.base[layout.pathStart + 1] == 0x2F {
                let length = out.count - layout.pathStart
                (out.base + layout.pathStart + 2).update(from: out.base + layout.pathStart, count: length)
                out.base[layout.pathStart] = 0x2F
                out.base[layout.pathStart + 1] = 0x2E
                out.count += 2
                layout.pathStart += 2
                layout.pathEnd = out.count
            }
        }

        mutating func shortenPath() {
            let length = out.count - layout.pathStart
            if length == 0 { return }
            if layout.special == .file && length == 3 && isASCIIAlpha(out.base[layout.pathStart + 1])
                && out.base[layout.pathStart + 2] == 0x3A
            {
                return
            }
            var index = out.count - 1
            while index > layout.pathStart && out.base[index] != 0x2F { index -= 1 }
            out.count = index
        }

        mutating func parseOpaquePath() {
            layout.opaquePath = true
            layout.pathStart = out.count
            while pointer < input.count {
                let byte = input[pointer]
                if byte == 0x3F || byte == 0x23 { break }
                if byte == 0x20, let next = self.byte(at: pointer + 1), next == 0x3F || next == 0x23 {
                    out.append(contentsOf: [0x25, 0x32, 0x30])
                } else {
                    out.appendEncoded(byte, ByteSets.c0Control)
                }
                pointer += 1
            }
            layout.pathEnd = out.count
        }

        mutating func parseQueryAndFragment() {
            if byte(at: pointer) == 0x3F {
                pointer += 1
                out.append(0x3F)
                layout.queryStart = out.count
                let set = isSpecial ? ByteSets.specialQuery : ByteSets.query
                while pointer < input.count && input[pointer] != 0x23 {
                    out.appendEncoded(input[pointer], set)
                    pointer += 1
                }
                layout.queryEnd = out.count
            }
            if byte(at: pointer) == 0x23 {
                pointer += 1
                out.append(0x23)
                layout.fragmentStart = out.count
                while pointer < input.count {
                    out.appendEncoded(input[pointer], ByteSets.fragment)
                    pointer += 1
                }
            }
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
