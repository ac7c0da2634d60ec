import Foundation
import Testing

@testable import SearchSession

/// Freed heap goes back to the system: what the server's periodic return of free memory does.
@Suite struct FreeMemoryReturnTests {
    /// This process's resident anonymous memory (the heap), in bytes.
    static func residentHeap() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    @Test func freedBlocksBetweenLiveOnesAreNoLongerResident() throws {
        // 64 MiB in 1 KiB blocks, written so they are resident; every block freed but one in 64,
        // so no free run reaches the heap's top (which glibc trims on its own).
        let blocks = (0..<65_536).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1_024, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 1_024)
            return block
        }
        for (index, block) in blocks.enumerated() where index % 64 != 63 { block.deallocate() }
        let before = try Self.residentHeap()
        releaseFreeMemory()
        let after = try Self.residentHeap()
        for (index, block) in blocks.enumerated() where index % 64 == 63 { block.deallocate() }
        // About 63 MiB was free; other tests allocate meanwhile, so ask for half of it.
        #expect(before - after > 32 << 20, "resident heap \(before >> 20) MiB -> \(after >> 20) MiB")
    }

    @Test func theLoopEndsWhenItsTaskIsCancelled() async {
        let loop = Task { await SearchEngine.returnFreeMemory(every: .milliseconds(5)) }
        try? await Task.sleep(for: .milliseconds(30))
        loop.cancel()
        await loop.value
    }
}
