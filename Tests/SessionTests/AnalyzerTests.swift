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
}
