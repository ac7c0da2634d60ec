/// Copies of the posting bytes a search reads from a large mapped segment, kept until the search
/// is done with them (``release()``).
///
/// Read through the mapping, a term's few kilobytes of postings made resident memory of the
/// process for good, and the kernel maps the 64 KiB around each page a read faults in: on
/// recipes-100k, a Capture load of 465 distinct terms read 5.7 MiB of postings and left the
/// whole 15.2 MiB of them resident. Read with `pread` (``ByteRegion/copy(from:count:to:)``, as
/// display strings are), they come from the page cache, which the kernel shares and reclaims, and
/// only the copies a search holds are the process's own. A common term's bits (``DenseBits``) are
/// copied the same way (another 3.1 MiB that stayed resident there).
final class PostingReads {
    private var copies: [UnsafeMutableRawPointer] = []

    /// A copy of the `count` bytes at `start` (inside `region`), kept until ``release()``.
    func copy(_ start: UnsafeRawPointer, count: Int, of region: ByteRegion) -> UnsafeRawPointer {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        copies.append(copy)
        region.copy(from: start, count: count, to: copy)
        return UnsafeRawPointer(copy)
    }

    /// Frees the copies: no list read through these reads is used after.
    func release() {
        for copy in copies { copy.deallocate() }
        copies.removeAll()
    }

    deinit { release() }
}
