import Testing

@testable import SearchSession

/// Names numbered by their bytes through a ``NameTable``: each name keeps the number it first
/// got across the table's growth, its hash is FNV-1a (what segments' term tables use), and a name
/// never added has none.
@Suite struct NameTableTests {
    @Test func everyNameKeepsItsFirstNumberAndItsBytes() {
        var table = NameTable()
        let names = [""] + (0..<20_000).map { "name \($0 * 7919 % 20_000)" } + ["crème", "東京"]
        for (number, name) in names.enumerated() { #expect(table.number(of: name) == UInt32(number)) }
        // Met again, in another order: the same numbers, nothing added.
        for (number, name) in names.enumerated().reversed() { #expect(table.number(of: name) == UInt32(number)) }
        #expect(table.count == names.count)
        for (number, name) in names.enumerated() {
            #expect(table.name(UInt32(number)) == name)
            var bytes = name
            let found = bytes.withUTF8 { table.number(of: $0, hash: NameTable.hash($0)) }
            #expect(found == UInt32(number))
        }
        var absent = "name 20000"
        #expect(absent.withUTF8 { table.number(of: $0, hash: NameTable.hash($0)) } == nil)
        #expect(table.offsets.count == names.count + 1)
        #expect(table.bytes.count == names.reduce(0) { $0 + $1.utf8.count })
    }

    /// FNV-1a's published vectors and two of ours: segments on disk were written with this hash,
    /// so it must not drift.
    @Test(arguments: [
        ("", 0xcbf2_9ce4_8422_2325 as UInt64), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
        ("crème brûlée", 0xee93_3a5e_900a_4cb2), ("東京 タワー", 0x16a9_4b47_d80c_b4da),
    ])
    func theHashIsFNV1aAsSegmentsWereWrittenWith(text: String, expected: UInt64) {
        var bytes = text
        #expect(bytes.withUTF8 { NameTable.hash($0) } == expected)
        #expect(Segment.hash(text) == expected)
    }

    @Test func aTermRunsPhraseHashIsTheHashOfItsTermsJoined() {
        let analyzer = Analyzer()
        for text in ["Red Guitar", "guitar", "L'appartement d’Anna, 45 m²", "", "  !! "] {
            var utf8 = text
            let run = utf8.withUTF8 { analyzer.termRun(utf8: $0) }
            #expect(run.strings == analyzer.terms(text))
            #expect(run.phraseHash == (run.isEmpty ? nil : Segment.hash(phrase: analyzer.terms(text))))
        }
    }
}
