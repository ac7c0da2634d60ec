import Testing

@testable import TerminalUI

@Suite struct KeyDecoderTests {
    @Test(
        "bytes from an xterm-like terminal decode to keys",
        arguments: [
            ([0x71], [Key.character("q")]),
            ([0x03], [.control("c")]),
            ([0x0D], [.enter]),
            ([0x09], [.tab]),
            ([0x7F], [.backspace]),
            ([0x20], [.character(" ")]),
            ([0x1B, 0x5B, 0x41], [.up]),
            ([0x1B, 0x5B, 0x42], [.down]),
            ([0x1B, 0x4F, 0x43], [.right]),  // application cursor mode
            ([0x1B, 0x4F, 0x44], [.left]),
            ([0x1B, 0x5B, 0x35, 0x7E], [.pageUp]),
            ([0x1B, 0x5B, 0x36, 0x7E], [.pageDown]),
            ([0x1B, 0x5B, 0x31, 0x7E], [.home]),
            ([0x1B, 0x5B, 0x46], [.end]),
            ([0x1B, 0x5B, 0x33, 0x7E], [.delete]),
            ([0x1B, 0x5B, 0x5A], [.backTab]),
            ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x41], [.up]),  // Ctrl-Up: the modifier is ignored
            ([0x6A, 0x1B, 0x5B, 0x41, 0x6B], [.character("j"), .up, .character("k")]),
            ([0xC3, 0xBC], [.character("ü")]),
            ([0x1B, 0x5B, 0x39, 0x39, 0x7E], [.unknown([0x1B, 0x5B, 0x39, 0x39, 0x7E])]),
        ] as [([UInt8], [Key])])
    func decodes(bytes: [UInt8], keys: [Key]) {
        var decoder = KeyDecoder()
        #expect(decoder.decode(bytes) == keys)
        #expect(!decoder.hasPending)
    }

    @Test("a sequence split across reads waits for its rest")
    func splitSequence() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.decode([0x5B]).isEmpty)
        #expect(decoder.decode([0x42, 0x71]) == [.down, .character("q")])
        #expect(!decoder.hasPending)
    }

    @Test("a lone ESC is the Escape key once no more bytes came; a cut-off sequence is unknown")
    func loneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flush() == [.escape])
        #expect(decoder.decode([0x1B, 0x5B]).isEmpty)
        #expect(decoder.flush() == [.unknown([0x1B, 0x5B])])
        #expect(decoder.flush().isEmpty)
    }

    @Test("a split UTF-8 character waits for its continuation bytes")
    func splitUTF8() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0xE2, 0x82]).isEmpty)
        #expect(decoder.decode([0xAC]) == [.character("€")])
    }
}
