import Testing

@testable import SearchSession

/// The attribute pairs' value ids, packed at the width the largest needs: every number reads
/// back, at every width, the last one included.
@Suite struct PackedColumnTests {
    @Test("numbers read back at the width their largest needs", arguments: [0, 1, 7, 8, 9, 19, 31, 32])
    func numbersReadBack(width: Int) throws {
        var generator = SplitMix64(state: UInt64(width + 1))
        let largest: UInt32 = width == 0 ? 0 : UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(width)) - 1)
        // The largest first and last, so the width is exactly `width` and the last read is at the end.
        let values = [largest] + (0..<1_001).map { _ in UInt32.random(in: 0...largest, using: &generator) } + [largest]
        let packed = PackedColumn.pack(values)
        #expect(packed.width == width)
        #expect(packed.bytes.count == PackedColumn.byteCount(width: width, count: values.count))
        try packed.bytes.withUnsafeBufferPointer { bytes in
            let column = try #require(PackedColumn(bytes: bytes, width: width, count: values.count))
            #expect(column.indices.map { column[$0] } == values)
        }
    }

    @Test func tooFewBytesOrTooWideAreRefused() {
        let packed = PackedColumn.pack([5, 6, 7])
        packed.bytes.withUnsafeBufferPointer { bytes in
            #expect(PackedColumn(bytes: bytes, width: packed.width, count: 3) != nil)
            #expect(
                PackedColumn(bytes: UnsafeBufferPointer(rebasing: bytes.dropLast()), width: packed.width, count: 3)
                    == nil)
            #expect(PackedColumn(bytes: bytes, width: 33, count: 1) == nil)
            #expect(PackedColumn(bytes: bytes, width: packed.width, count: 400) == nil)
        }
        #expect(PackedColumn.pack([]).bytes.count == PackedColumn.padding)
    }
}
