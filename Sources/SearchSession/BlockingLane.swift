internal import Dispatch

/// A thread of its own for work that blocks (an fsync, a lock held across one), so that async
/// callers wait for it suspended instead of holding a thread of Swift's cooperative pool.
///
/// The pool has a thread per allowed core (on a server pinned to one core, one): a catalog write
/// that waits 10–100 ms for its log's fsync on a pool thread stalls every Capture meanwhile,
/// even those that need nothing from the disk. Work on one lane runs one piece at a time, in
/// order.
public final class BlockingLane: Sendable {
    private let queue: DispatchQueue

    /// A lane named `label` (seen in debuggers and profiles).
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the lane and returns its result; the caller is suspended meanwhile.
    public func run<Value: Sendable>(
        _ work: @escaping @Sendable () throws(SearchError) -> Value
    ) async throws(SearchError) -> Value {
        let result: Result<Value, SearchError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(SearchError) -> Value in try work() })
            }
        }
        return try result.get()
    }
}
