import Foundation
import Testing

@testable import SearchSession

/// Opening a mapped segment reads its header and the shape check's values with `pread`, so it
/// maps no page of the file: the kernel maps a whole large folio (up to 2 MiB of a file just
/// written) around any page touched through the mapping, and that stays resident memory of the
/// process. Measured on sparse-100k: 28 → 20 MiB of the segment resident after start and a Query.
@Suite struct SegmentOpeningTests {
    /// How many pages of `region` this process has mapped in, from /proc/self/pagemap.
    static func residentPages(of region: ByteRegion) throws -> Int {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = Int(bitPattern: region.base) / pageSize
        let pages = (region.count + pageSize - 1) / pageSize
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/pagemap"))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(first * 8))
        let data = try handle.read(upToCount: pages * 8) ?? Data()
        var present = 0
        data.withUnsafeBytes { raw in
            for page in 0..<(raw.count / 8)
            where raw.loadUnaligned(fromByteOffset: page * 8, as: UInt64.self) >> 63 == 1 {
                present += 1
            }
        }
        return present
    }

    @Test func openingAMappedSegmentMapsNoPageOfIt() throws {
        let built = Segment(entities: RandomCatalog.entities(3_000, seed: 8), analyzer: Analyzer(synonyms: []))
        let segment = try IndexDirectory.temporary().store(built)
        #expect(segment.region.isMapped)
        #expect(segment.count == 3_000)
        #expect(try Self.residentPages(of: segment.region) == 0)
        // A read through the mapping maps pages (the measurement sees them).
        var sum = 0
        for doc in 0..<segment.count { sum &+= Int(segment.docType[doc]) }
        #expect(sum >= 0)
        #expect(try Self.residentPages(of: segment.region) > 0, "\(segment.region.count) bytes")
    }

    /// A file is written in pieces (so the kernel's copy can give way to searches): a region of
    /// several pieces and a part, and one smaller than a piece, read back byte for byte.
    @Test(arguments: [3 * ByteRegion.writePiece + 4_093, 1_000])
    func aWrittenRegionReadsBackByteForByte(count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let region = ByteRegion.build(count: count) { buffer in buffer.copyBytes(from: bytes) }
        let path = NSTemporaryDirectory() + "vi-continue-region-\(getpid())-\(count).bin"
        defer { unlink(path) }
        try region.write(to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        let mapped = try ByteRegion.map(path: path)
        #expect(mapped.bytes(at: 0, count: count) == bytes)
    }
}
