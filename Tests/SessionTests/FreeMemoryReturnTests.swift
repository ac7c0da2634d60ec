import Foundation
import Testing

@testable import SearchSession

/// Freed heap goes back to the system: what the server's periodic return of free memory does.
@Suite struct FreeMemoryReturnTests {
    /// The pages that `blocks` of `size` bytes (and the 16-byte header glibc puts before each)
    /// cover whole, as runs of (first page, pages).
    static func pagesCovered(by blocks: [UnsafeMutableRawPointer], size: Int) -> [(start: UInt, pages: Int)] {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var spans = [(start: UInt, end: UInt)]()
        for start in blocks.map({ UInt(bitPattern: $0) - 16 }).sorted() {
            if let last = spans.last, start <= last.end {
                spans[spans.count - 1].end = max(last.end, start + 16 + UInt(size))
            } else {
                spans.append((start, start + 16 + UInt(size)))
            }
        }
        return spans.compactMap { span in
            let first = (span.start + page - 1) & ~(page - 1)
            let pages = span.end > first ? Int((span.end - first) / page) : 0
            return pages > 0 ? (first, pages) : nil
        }
    }

    /// How many of `runs`' pages are resident.
    ///
    /// Asked of the pages themselves (`mincore`), and only of pages the test's own blocks cover
    /// whole: tests running beside this one allocate and free meanwhile, which moved the
    /// process's resident memory by more than the blocks freed here, and put live blocks of
    /// their own between this test's.
    ///
    /// A page no longer mapped is not resident: glibc unmaps a secondary arena's heap, or its
    /// end, once nothing in it is live (`mincore` then fails with ENOMEM for a run that
    /// includes it, so such a run is asked page by page).
    static func residentPages(_ runs: [(start: UInt, pages: Int)]) throws -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = 0
        for run in runs {
            var vector = [UInt8](repeating: 0, count: run.pages)
            if mincore(UnsafeMutableRawPointer(bitPattern: run.start), run.pages * page, &vector) == 0 {
                resident += vector.count { $0 & 1 != 0 }
                continue
            }
            try #require(errno == ENOMEM)
            for index in 0..<run.pages {
                var one: UInt8 = 0
                let start = UnsafeMutableRawPointer(bitPattern: run.start + UInt(index * page))
                if mincore(start, page, &one) == 0 {
                    resident += Int(one & 1)
                } else {
                    try #require(errno == ENOMEM)
                }
            }
        }
        return resident
    }

    @Test func freedBlocksBetweenLiveOnesAreNoLongerResident() throws {
        // A trim elsewhere in the process (a test beside this one returning free memory) can come
        // between the frees and the first count, leaving nothing to measure: then try again.
        var measured: (before: Int, after: Int)?
        for _ in 0..<3 where measured == nil {
            measured = try Self.residentPagesAroundARelease()
        }
        let (before, after) = try #require(measured, "another trim came first in every attempt")
        #expect(after * 2 < before, "resident pages \(before) -> \(after)")
    }

    /// Resident pages that freed blocks cover whole, before and after ``releaseFreeMemory()``;
    /// `nil` when most of them were no longer resident before it.
    static func residentPagesAroundARelease() throws -> (before: Int, after: Int)? {
        // 64 MiB in 1 KiB blocks, written so they are resident; every block freed but one in 64,
        // so no free run reaches the heap's top (which glibc trims on its own).
        let blocks = (0..<65_536).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1_024, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 1_024)
            return block
        }
        defer { for (index, block) in blocks.enumerated() where index % 64 == 63 { block.deallocate() } }
        let freed = blocks.indices.filter { $0 % 64 != 63 }.map { blocks[$0] }
        let covered = pagesCovered(by: freed, size: 1_024)
        for block in freed { block.deallocate() }
        // About 15 pages in each 64 KiB; blocks other tests allocate meanwhile may land in a
        // few of them again, so the check asks for half.
        let before = try residentPages(covered)
        guard before > 10_000 else { return nil }
        releaseFreeMemory()
        return (before, try residentPages(covered))
    }

    @Test func theLoopEndsWhenItsTaskIsCancelled() async {
        let loop = Task { await SearchEngine.returnFreeMemory(every: .milliseconds(5)) }
        try? await Task.sleep(for: .milliseconds(30))
        loop.cancel()
        await loop.value
    }
}
