import DeepLinkRouter
import Testing

/// Conflict detection and precedence checked against brute force on generated route sets.
@Suite struct ConflictTests {
    enum Piece: Equatable {
        case literal(String)
        case typed(String, [String]?)  // kind, enum values
        case untyped
        case catchAll

        func spelling(_ position: Int) -> String {
            switch self {
            case .literal(let text): text
            case .typed(let kind, let values?): "{p\(position):\(kind)(\(values.joined(separator: "|")))}"
            case .typed(let kind, nil): "{p\(position):\(kind)}"
            case .untyped: "{p\(position)}"
            case .catchAll: "{*rest}"
            }
        }

        var rank: Int {
            switch self {
            case .literal: 0
            case .typed: 1
            case .untyped: 2
            case .catchAll: 3
            }
        }

        func accepts(_ segment: String) -> Bool {
            let ascii = segment.unicodeScalars.allSatisfy(\.isASCII)
            switch self {
            case .literal(let text): return segment == text
            case .typed("int", _): return !segment.isEmpty && segment.count <= 18 && segment.allSatisfy(\.isWholeNumber)
            case .typed("slug", _):
                return !segment.isEmpty && ascii
                    && segment.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            case .typed("uuid", _):
                let hex = segment.enumerated().allSatisfy {
                    [8, 13, 18, 23].contains($0.offset) ? $0.element == "-" : $0.element.isHexDigit
                }
                return segment.count == 36 && hex
            case .typed(_, let values?): return values.contains(segment)
            default: return true
            }
        }
    }

    /// Whether a pattern (made of pieces, with the parameter named by position) matches a path.
    static func matches(_ pattern: [Piece], _ path: [String]) -> Bool {
        for (index, piece) in pattern.enumerated() {
            if piece == .catchAll { return true }
            guard index < path.count, piece.accepts(path[index]) else { return false }
        }
        return pattern.count == path.count
    }

    static let choices: [Piece] = [
        .literal("a"), .literal("b"), .typed("int", nil), .typed("slug", nil), .typed("uuid", nil),
        .typed("enum", ["1", "a"]), .typed("enum", ["b", "x"]), .untyped,
    ]
    static let alphabet = ["a", "b", "1", "x", "-", "", "00000000-0000-0000-0000-000000000000"]

    static func paths(upTo length: Int) -> [[String]] {
        var all: [[String]] = []
        var frontier: [[String]] = [[]]
        for _ in 0..<length {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + [$0] } }
            all += frontier
        }
        return all
    }

    @Test func conflictsAndPrecedenceAgreeWithBruteForce() throws {
        var generator = SplitMix64(seed: 99)
        let paths = Self.paths(upTo: 3)
        var conflicts = 0
        var clean = 0
        for _ in 0..<200 {
            var patterns: [[Piece]] = []
            for _ in 0..<(3 + generator.next() % 4) {
                var pattern: [Piece] = []
                for _ in 0..<(1 + generator.next() % 3) {
                    pattern.append(Self.choices[Int(generator.next() % UInt64(Self.choices.count))])
                }
                if generator.next() % 5 == 0 { pattern.append(.catchAll) }
                patterns.append(pattern)
            }
            let routes = patterns.enumerated().map { index, pattern in
                #"{"name":"r\#(index)","pattern":"/\#(pattern.enumerated().map { $1.spelling($0) }.joined(separator: "/"))","screen":"s"}"#
            }
            let json = #"{"schemes":["x"],"trailingSlash":"strict","routes":[\#(routes.joined(separator: ","))]}"#
            // Brute force: pairs of equal rank that share a path.
            var overlapping = false
            for i in 0..<patterns.count {
                for j in (i + 1)..<patterns.count where patterns[i].map(\.rank) == patterns[j].map(\.rank) {
                    if paths.contains(where: { Self.matches(patterns[i], $0) && Self.matches(patterns[j], $0) }) {
                        overlapping = true
                    }
                }
            }
            do {
                let table = try RouteTable(jsonString: json)
                #expect(!overlapping, "missed a conflict in \(json)")
                clean += 1
                let router = Router(table: table)
                for path in paths {
                    // The winner is the matching route whose rank vector is smallest.
                    let expected = patterns.indices.filter { Self.matches(patterns[$0], path) }.min {
                        patterns[$0].map(\.rank).lexicographicallyPrecedes(patterns[$1].map(\.rank))
                    }
                    let found = router.lookup(path: "/" + path.joined(separator: "/")).map {
                        router.routes[$0.routeIndex].name
                    }
                    #expect(found == expected.map { "r\($0)" }, "\(path) in \(json)")
                }
            } catch {
                #expect(overlapping, "false conflict: \(error.message)")
                conflicts += 1
                // The example URL in the message is matched by both named routes.
                let parts = error.message.split(separator: "\"")
                let first = Int(parts[1].dropFirst())!
                let second = Int(parts[3].dropFirst())!
                let example = String(error.message.split(separator: "both match x://").last!)
                let segments = example.split(separator: "/", omittingEmptySubsequences: false).map {
                    $0.removingPercentEncodingForTest
                }
                #expect(Self.matches(patterns[first], segments) && Self.matches(patterns[second], segments), "\(error)")
            }
        }
        // The generator must exercise both outcomes.
        #expect(conflicts > 10 && clean > 10, "conflicts \(conflicts), clean \(clean)")
    }
}

extension Substring {
    var removingPercentEncodingForTest: String {
        var bytes: [UInt8] = []
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == 0x25, let value = UInt8(String(self[utf8.index(after: index)...].prefix(2)), radix: 16) {
                bytes.append(value)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(utf8[index])
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
