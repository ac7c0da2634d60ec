public import Foundation

/// Runs a blocking call (a pipe read to its end, a wait for a process, a curl) on a thread of its
/// own and waits for it without holding a thread of Swift's cooperative pool.
///
/// The pool has as many threads as cores (two on CI): a test that blocked one while waiting for
/// a child process would starve the in-process servers of the tests running beside it.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// ``offThePool(_:)`` for a call that throws.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Everything `pipe` yields until it closes, read off the pool (see ``offThePool(_:)``).
public func readToEnd(_ pipe: Pipe) async -> Data {
    await offThePool { pipe.fileHandleForReading.readDataToEndOfFile() }
}
