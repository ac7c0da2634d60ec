internal import Dispatch
internal import SystemInfo

/// One large call's work split at the middle of a snapshot's document numbers, each half on its
/// own core: matching and facet counting read the snapshot only and write their own results.
enum TwoCores {
    /// Whether this process may run on a second core (one its affinity mask allows: a server
    /// pinned to one core has one however many the machine has).
    static let available = Processors.allowed > 1

    /// Whether `work` (in a caller's unit) reaching `threshold` pays for splitting: on a machine
    /// with a second core, or always with a threshold of 0 (how tests reach the split path).
    static func pays(_ work: Int, from threshold: Int) -> Bool {
        (available || threshold == 0) && work >= threshold
    }

    /// The lower and upper half of `snapshot`'s document numbers.
    static func halves(of snapshot: CatalogSnapshot) -> [Range<Int32>] {
        let middle = Int32(snapshot.documentCount / 2)
        return [Int32.min..<middle, middle..<Int32.max]
    }

    /// `work` for halves 0 and 1 at once, the results in that order.
    static func map<T>(_ work: (_ half: Int) -> T) -> [T] {
        // Each half writes only its own slot.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: 2)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        nonisolated(unsafe) let work = work
        DispatchQueue.concurrentPerform(iterations: 2) { results[$0] = work($0) }
        return [results[0]!, results[1]!]
    }
}
