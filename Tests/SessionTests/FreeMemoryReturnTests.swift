import Foundation
import Testing

@testable import SearchSession

/// Freed heap goes back to the system: what the server's periodic return of free memory does.
@Suite struct FreeMemoryReturnTests {
    /// How many pages from `start` to `end` are resident.
    ///
    /// Asked of the pages themselves (`mincore`), not of the process's resident memory: tests
    /// running beside this one allocate and free meanwhile, and once moved the process's
    /// figure by more than the blocks freed here.
    static func residentPages(from start: UnsafeRawPointer, to end: UnsafeRawPointer) throws -> Int {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let first = UInt(bitPattern: start) & ~(page - 1)
        let length = Int(UInt(bitPattern: end) - first)
        var resident = [UInt8](repeating: 0, count: (length + Int(page) - 1) / Int(page))
        try #require(mincore(UnsafeMutableRawPointer(bitPattern: first), length, &resident) == 0)
        return resident.count { $0 & 1 != 0 }
    }

    @Test func freedBlocksBetweenLiveOnesAreNoLongerResident() throws {
        // 64 MiB in 1 KiB blocks, written so they are resident; every block freed but one in 64,
        // so no free run reaches the heap's top (which glibc trims on its own).
        let blocks = (0..<65_536).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1_024, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 1_024)
            return block
        }
        let start = try #require(blocks.min())
        let end = try #require(blocks.max()) + 1_024
        for (index, block) in blocks.enumerated() where index % 64 != 63 { block.deallocate() }
        let before = try Self.residentPages(from: start, to: end)
        releaseFreeMemory()
        let after = try Self.residentPages(from: start, to: end)
        for (index, block) in blocks.enumerated() where index % 64 == 63 { block.deallocate() }
        // A live block in each 64 KiB keeps its page (and the allocator's headers theirs): about
        // one page in sixteen stays. Blocks other tests allocate meanwhile may land here too, so
        // ask for half.
        #expect(after * 2 < before, "resident pages \(before) -> \(after)")
    }

    @Test func theLoopEndsWhenItsTaskIsCancelled() async {
        let loop = Task { await SearchEngine.returnFreeMemory(every: .milliseconds(5)) }
        try? await Task.sleep(for: .milliseconds(30))
        loop.cancel()
        await loop.value
    }
}
