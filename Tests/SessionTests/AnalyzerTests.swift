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
        ("Knives shelves children feet mice tomatoes", ["knife", "shelf", "child", "foot", "mouse", "tomato"]),
        ("Cookies cookie buses lenses lens", ["cookie", "cookie", "bus", "len", "len"]),
        ("Don't stop", ["dont", "stop"]),
        ("L'appartement d’Anna", ["lappartement", "appartement", "danna", "anna"]),
        ("dell'arte O'Connor's", ["dellarte", "arte", "oconnor", "connor"]),
        ("'tis qu'il l'été", ["tis", "quil", "lete", "ete"]),
        ("45 m² 45m²", ["45", "m2", "45m2"]),
        ("ﬁne ＦＵＬＬ 2½-Zimmer", ["fine", "full", "2½", "zimmer"]),
        ("東京 ﬁ ｶﾀｶﾅ", ["東京", "fi", "カタカナ"]),
        ("Sigur Rós 1999", ["sigur", "ros", "1999"]),
        // Icelandic eth folds as ASCII folding does (tantivy, Lucene): a label `ibud` finds `Íbúð`.
        ("Íbúð RAÐHÚS Þórsmörk", ["ibud", "radhus", "thorsmork"]),
        ("Music/Rock", ["music", "rock"]),
    ])
    func foldsSplitsAndStems(text: String, expected: [String]) {
        #expect(Analyzer().terms(text) == expected)
    }

    @Test func irregularPluralsFoldWithTheirSingulars() {
        for (plural, singular) in Analyzer.irregularPlurals {
            #expect(Analyzer.stem(plural) == Analyzer.stem(singular), "\(plural) → \(singular)")
        }
        // Words the table does not know keep the suffix rules.
        #expect(Analyzer.stem("melodies") == "melody")
        #expect(Analyzer.stem("houses") == "house")
        #expect(Analyzer.stem("omens") == "omen")
    }

    @Test func synonymsMapToTheFirstTermOfTheirGroup() {
        let analyzer = Analyzer(synonyms: [["guitar", "axe"], ["axe", "Gitarre"], ["a b", "c"]])
        #expect(analyzer.terms("Axe GITARREN gitarre guitars") == ["guitar", "gitarren", "guitar", "guitar"])
        #expect(analyzer.terms("c") == ["c"])
    }

    @Test func aSynonymSpelledWithoutItsDiacriticsMapsToItsGroup() {
        let analyzer = Analyzer(synonyms: [["Apartment", "Íbúð"], ["Townhouse", "Raðhús"]])
        #expect(analyzer.terms("ibud íbúð Íbúðir") == ["apartment", "apartment", "ibudir"])
        #expect(analyzer.terms("radhus Raðhús") == ["townhouse", "townhouse"])
    }

    /// The analyzer's tokens as Unicode's tables make them for the whole text at once: the
    /// text's compatibility decomposition (vulgar fractions kept whole), marks dropped, letters and digits folded, apostrophes
    /// joining (and the letters after the first one a token too when there are three or more).
    static func referenceTokens(_ text: String) -> [String] {
        let special: [Unicode.Scalar: String] = [
            "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d",
            "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ð": "d", "Ð": "d", "ı": "i",
        ]
        var out = [String]()
        var current = ""
        var afterApostrophe: String?
        func endToken() {
            guard !current.isEmpty else { return }
            out.append(current)
            if let suffix = afterApostrophe, suffix.utf8.count >= 3 { out.append(suffix) }
            current = ""
            afterApostrophe = nil
        }
        // Vulgar fractions keep their canonical form (`2½` is one token, not `21` and `2`).
        var decomposed = ""
        for character in text.unicodeScalars.map(String.init) {
            let compatible = character.decomposedStringWithCompatibilityMapping
            decomposed += compatible.unicodeScalars.contains("\u{2044}") ? character : compatible
        }
        for scalar in decomposed.decomposedStringWithCanonicalMapping.unicodeScalars {
            let p = scalar.properties
            if [.nonspacingMark, .enclosingMark, .spacingMark].contains(p.generalCategory) { continue }
            if scalar == "'" || scalar == "\u{2019}" {
                if !current.isEmpty && afterApostrophe == nil { afterApostrophe = "" }
                continue
            }
            if p.isAlphabetic || p.numericType != nil {
                let folded = special[scalar] ?? p.lowercaseMapping
                current += folded
                afterApostrophe? += folded
            } else {
                endToken()
            }
        }
        endToken()
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
            0x1e00...0x1eff, 0x2000...0x206f, 0x2070...0x218f, 0xfb00...0xfb06, 0xff01...0xff5e, 0x3040...0x30ff,
            0x4e00...0x4e40, 0xac00...0xac40, 0x1f600...0x1f640,
        ]
        for _ in 0..<2_000 {
            let text = Self.randomText(of: 1...24, from: pools, using: &rng)
            #expect(Analyzer.tokens(text) == Self.referenceTokens(text), "\(text.unicodeScalars.map { $0.value })")
        }
    }

    /// A text of a random number (in `length`) of scalars, each from a random one of `pools`.
    static func randomText(
        of length: ClosedRange<Int>, from pools: [ClosedRange<UInt32>], using rng: inout SplitMix64
    ) -> String {
        var text = ""
        for _ in 0..<Int.random(in: length, using: &rng) {
            let pool = pools[Int.random(in: 0..<pools.count, using: &rng)]
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &rng)) { text.unicodeScalars.append(scalar) }
        }
        return text
    }

    @Test func textOfTabledScalarsOnlyFoldsFromItsBytesAsTheReferenceDoes() {
        // Texts with no scalar past the table take the path that reads their UTF-8 bytes: one-,
        // two- and three-byte scalars, marks, apostrophes (both), vulgar fractions (which fold
        // scalar by scalar), upper and lower case.
        var rng = SplitMix64(state: 11)
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7e, 0x41...0x5a, 0x27...0x27, 0x2019...0x2019, 0xa0...0x24f, 0x300...0x36f, 0x370...0x3ff,
            0x400...0x4ff, 0x5d0...0x5ea, 0x900...0x97f, 0x1e00...0x1eff, 0x2000...0x206f, 0x2070...0x218f,
            0x2460...0x24ff, 0x2e80...0x2fff,
        ]
        var tabledOnly = 0
        for _ in 0..<4_000 {
            let text = Self.randomText(of: 1...32, from: pools, using: &rng)
            if text.unicodeScalars.allSatisfy({ $0.value < ScalarFolds.tabled }) { tabledOnly += 1 }
            #expect(Analyzer.tokens(text) == Self.referenceTokens(text), "\(text.unicodeScalars.map { $0.value })")
        }
        #expect(tabledOnly == 4_000)
    }

    @Test func kanaAndIdeographsFoldFromTheirBytesAsTheReferenceDoes() {
        // Japanese and Chinese text: CJK punctuation, kana (voiced ones precomposed and as a
        // kana with a combining mark), both ranges of unified ideographs, among ASCII; the path
        // that reads bytes takes all of them.
        var rng = SplitMix64(state: 17)
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7e, 0x3000...0x303f, 0x3040...0x30ff, 0x3099...0x309c, 0x3400...0x4dbf, 0x4e00...0x9fff,
        ]
        var fromBytes = 0
        for _ in 0..<4_000 {
            let text = Self.randomText(of: 1...32, from: pools, using: &rng)
            var utf8 = text
            if utf8.withUTF8({ ScalarFolds.shared.tokens(ofTabledText: $0) }) != nil { fromBytes += 1 }
            #expect(Analyzer.tokens(text) == Self.referenceTokens(text), "\(text.unicodeScalars.map { $0.value })")
        }
        #expect(fromBytes == 4_000)
        #expect(Analyzer().terms("東京のソフトウェアエンジニア・ジャバ") == ["東京のソフトウェアエンシニア", "シャハ"])
    }
}
