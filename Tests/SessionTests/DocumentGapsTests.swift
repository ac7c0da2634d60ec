import Testing

@testable import SearchSession

/// Lists of documents as packed gaps: what is written reads back, whatever the lengths and
/// gaps, and bytes that were not written by the encoder never name a document past the segment
/// or read past the list.
@Suite struct DocumentGapsTests {
    /// The bytes of `docs`, with the padding a segment's section ends with.
    static func encoded(_ docs: [UInt32]) -> [UInt8] {
        var bytes = [UInt8]()
        DocumentGaps.append(docs, to: &bytes)
        return bytes + repeatElement(0, count: DocumentGaps.padding)
    }

    /// The documents of `bytes` (padding included), below `limit`.
    static func decode(_ bytes: [UInt8], limit: Int = Int(UInt32.max)) -> [UInt32] {
        bytes.withUnsafeBufferPointer {
            DocumentGaps.decode(UnsafeBufferPointer(rebasing: $0.dropLast(DocumentGaps.padding)), limit: limit)
        }
    }

    @Test(
        "lists read back whatever their lengths and gaps",
        arguments: [0, 1, 2, 127, 128, 129, 256, 300, 1_000])
    func listsReadBack(length: Int) {
        var generator = SplitMix64(state: UInt64(length + 7))
        let spreads: [UInt32] = [1, 2, 100, 70_000, UInt32.max / UInt32(max(length, 1) + 1)]
        for spread in spreads {
            var doc: UInt32 = 0
            var docs = [UInt32]()
            for _ in 0..<length {
                docs.append(doc)
                doc += UInt32.random(in: 1...max(spread, 1), using: &generator)
            }
            let bytes = Self.encoded(docs)
            #expect(Self.decode(bytes) == docs, "\(length) \(spread)")
            bytes.withUnsafeBufferPointer {
                #expect(DocumentGaps.count(UnsafeBufferPointer(rebasing: $0.dropLast(DocumentGaps.padding))) == length)
            }
        }
        // The largest document there can be, and neighbours that take no bits at all.
        #expect(Self.decode(Self.encoded([0, UInt32.max - 1])) == [0, UInt32.max - 1])
        let run = Array(5_000..<UInt32(5_000 + length))
        #expect(Self.decode(Self.encoded(run)) == run)
    }

    @Test func packedTheyTakeTheirGapsWidth() {
        // 300 neighbours: three blocks of a width byte and a count byte, the first gap (4,999)
        // setting the first block's width to 13 bits, the other blocks' gaps all 0 bits.
        #expect(Self.encoded(Array(5_000..<5_300)).count == 2 + (13 * 128 + 7) / 8 + 2 + 2 + DocumentGaps.padding)
    }

    @Test func bytesEndTheListWhereTheyStopMakingSense() {
        // Two blocks: the first 128 documents, then 74 a gap of 2 apart (10 bytes at 1 bit each).
        let docs: [UInt32] = [3, 200, 70_000] + stride(from: 70_002, to: 70_400, by: 2).map(UInt32.init)
        let bytes = Self.encoded(docs)
        // A segment of 1,000 documents: nothing from 1,000 on.
        #expect(Self.decode(bytes, limit: 1_000) == [3, 200])
        // Cut inside the second block: the first block's numbers only.
        #expect(
            Self.decode(Array(bytes.dropLast(DocumentGaps.padding + 3)) + Array(repeating: 0, count: 8))
                == Array(docs.prefix(128)))
        // A width past 32 ends the list there.
        var wide = bytes
        wide[0] = 40
        #expect(Self.decode(wide) == [])
        // Room for fewer documents than a block holds: none of that block.
        bytes.withUnsafeBufferPointer { bytes in
            var out = [UInt32](repeating: 0, count: 10)
            let written = out.withUnsafeMutableBufferPointer {
                DocumentGaps.decode(
                    UnsafeBufferPointer(rebasing: bytes.dropLast(DocumentGaps.padding)), limit: 100_000,
                    into: $0.baseAddress!, capacity: 10)
            }
            #expect(written == 0)
        }
    }
}
