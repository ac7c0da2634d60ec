import Testing

@testable import SearchSession

/// Labels found by their text through a ``LabelTable``: every number added is found on its
/// hash's chain across the table's growth, however many labels share a hash, and a text
/// never added is not.
@Suite struct LabelTableTests {
    /// Adds `texts` in order with `hash`, as a numbering adds labels it meets.
    static func table(_ texts: [String], hash: (String) -> Int) -> LabelTable {
        var table = LabelTable()
        for (number, text) in texts.enumerated() {
            table.add(Int32(number), hash: hash(text), count: number + 1) { hash(texts[$0]) }
        }
        return table
    }

    @Test(arguments: [1, 7, 1 << 20])
    func everyLabelIsFoundAndNoOtherText(hashes: Int) {
        let texts = (0..<5_000).map { "label \($0)" }
        // `hashes` distinct hashes: 1 puts every label on one chain.
        let hash = { (text: String) in text.hashValue % hashes }
        let table = Self.table(texts, hash: hash)
        for (number, text) in texts.enumerated() {
            #expect(table.number(hash: hash(text)) { texts[$0] == text } == Int32(number))
        }
        #expect(table.number(hash: hash("label 5000")) { texts[$0] == "label 5000" } == nil)
        // At most half full: twice the labels' slots or more, a power of two.
        #expect(table.bytes >= 4 * 2 * texts.count)
        #expect((table.bytes / 4) & (table.bytes / 4 - 1) == 0)
    }

    @Test func rebuildingPlacesEveryLabelAgain() {
        let texts = ["a", "b", "c"]
        var table = LabelTable()
        #expect(table.number(hash: 0) { _ in true } == nil)
        table.rebuild(count: texts.count) { texts[$0].hashValue }
        for (number, text) in texts.enumerated() {
            #expect(table.number(hash: text.hashValue) { texts[$0] == text } == Int32(number))
        }
    }
}
