import Foundation
import Testing

@testable import SearchSession

@Suite struct AnalyzerTests {
    @Test(arguments: [
        ("Crème Brûlée", ["creme", "brulee"]),
        ("Die Ärzte — Straße", ["die", "arzte", "strasse"]),
        ("GUITARS and Amps!", ["guitar", "and", "amp"]),
        ("Melodies, boxes, classes, matches, dishes", ["melody", "box", "class", "match", "dish"]),
        ("bus gas its analysis", ["bus", "gas", "its", "analysis"]),
        ("Don't stop", ["dont", "stop"]),
        ("Sigur Rós 1999", ["sigur", "ros", "1999"]),
        ("Music/Rock", ["music", "rock"]),
    ])
    func foldsSplitsAndStems(text: String, expected: [String]) {
        #expect(Analyzer().terms(text) == expected)
    }

    @Test func synonymsMapToTheFirstTermOfTheirGroup() {
        let analyzer = Analyzer(synonyms: [["guitar", "axe"], ["axe", "Gitarre"], ["a b", "c"]])
        #expect(analyzer.terms("Axe GITARREN gitarre guitars") == ["guitar", "gitarren", "guitar", "guitar"])
        #expect(analyzer.terms("c") == ["c"])
    }

    /// The analyzer's tokens as Unicode's tables make them for the whole text at once: the
    /// text's canonical decomposition, marks and apostrophes dropped, letters and digits folded.
    static func referenceTokens(_ text: String) -> [String] {
        let special: [Unicode.Scalar: String] = [
            "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d",
            "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ı": "i",
        ]
        var out = [String]()
        var current = ""
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            let p = scalar.properties
            if [.nonspacingMark, .enclosingMark, .spacingMark].contains(p.generalCategory) { continue }
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if p.isAlphabetic || p.numericType != nil {
                current += special[scalar] ?? p.lowercaseMapping
            } else if !current.isEmpty {
                out.append(current)
                current = ""
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    @Test func theScalarTableFoldsAsTheWholeTextsDecompositionDoes() {
        // Every tabled scalar between letters, and random runs of scalars from several scripts
        // (precomposed and already decomposed, marks in any order), as text.
        for value in 0x80..<UInt32(ScalarFolds.tabled) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a\(Character(scalar))b Ab\(Character(scalar))"
            #expect(Analyzer.tokens(text) == Self.referenceTokens(text), "U+\(String(value, radix: 16))")
        }
        var rng = SplitMix64(state: 5)
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7e, 0xa0...0x24f, 0x300...0x36f, 0x370...0x3ff, 0x400...0x4ff, 0x5d0...0x5ea, 0x900...0x97f,
            0x1e00...0x1eff, 0x2000...0x206f, 0x3040...0x30ff, 0x4e00...0x4e40, 0xac00...0xac40, 0x1f600...0x1f640,
        ]
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...24, using: &rng) {
                let pool = pools[Int.random(in: 0..<pools.count, using: &rng)]
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &rng)) {
                    text.unicodeScalars.append(scalar)
                }
            }
            #expect(Analyzer.tokens(text) == Self.referenceTokens(text), "\(text.unicodeScalars.map { $0.value })")
        }
    }
}
