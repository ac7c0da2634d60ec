/// A column of counts, one per value number of a snapshot's numbering: what ``FacetCounts``
/// holds for its string values, handed over from the ``FacetTally`` that counted them.
///
/// The value counts are as many as the catalog's distinct string values (archive-100k: 175,000,
/// 0.7 MB), whatever the hits. As an array they were copied out of the tally's buffer on every
/// Capture (with the look-ups `FacetTally.countEach` leaves out, by callgrind, most of the
/// last-level cache misses of a Capture of 964 hits: 37,000 then, 5,600 without); here the
/// buffer itself becomes the counts. Copied on write, as an array is, so a snapshot's kept counts
/// changed in place by a write stay whole for those reading them.
struct CountColumn: RandomAccessCollection, Sendable, Equatable {
    /// The counts' memory, freed with the last column that holds it.
    private final class Storage: @unchecked Sendable {
        // Changed only through a column that holds the sole reference (see `subscript`).
        let buffer: UnsafeMutableBufferPointer<Int32>

        init(adopting buffer: UnsafeMutableBufferPointer<Int32>) { self.buffer = buffer }

        deinit { buffer.baseAddress?.deallocate() }
    }

    private var storage: Storage

    /// Takes over `buffer`, allocated with `allocate(capacity:)` (as ``filledBuffer(_:_:)``
    /// allocates) and written by nobody else from now on: it is freed with the column.
    init(adopting buffer: UnsafeMutableBufferPointer<Int32>) {
        storage = Storage(adopting: buffer)
    }

    /// A column of `count` zeros, and its memory for the one who counts into it (a
    /// ``FacetTally``), which writes it before the column is read and not after.
    static func zeros(_ count: Int) -> (column: CountColumn, memory: UnsafeMutableBufferPointer<Int32>) {
        let memory = filledBuffer(count, Int32(0))
        return (CountColumn(adopting: memory), memory)
    }

    /// A column of `count` counts, each of them written by `initialize`.
    init(count: Int, initializingWith initialize: (UnsafeMutableBufferPointer<Int32>) -> Void) {
        let memory = UnsafeMutableBufferPointer<Int32>.allocate(capacity: Swift.max(count, 1))
        let counts = UnsafeMutableBufferPointer(rebasing: memory[0..<count])
        initialize(counts)
        self.init(adopting: counts)
    }

    /// A copy of `counts`.
    init(_ counts: some Collection<Int32>) {
        self.init(count: counts.count) { _ = $0.initialize(from: counts) }
    }

    /// These counts followed by zeros up to `count` (a numbering that has grown): one copy.
    func padded(to count: Int) -> CountColumn {
        guard count != self.count else { return self }
        return withUnsafeBufferPointer { counts in
            CountColumn(count: count) { padded in
                _ = padded.initialize(from: counts)
                padded[counts.count...].initialize(repeating: 0)
            }
        }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.buffer.count }

    subscript(position: Int) -> Int32 {
        get { storage.buffer[position] }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Self(storage.buffer).storage }
            storage.buffer[position] = newValue
        }
    }

    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Int32>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(storage.buffer))
    }

    func withContiguousStorageIfAvailable<Result>(
        _ body: (UnsafeBufferPointer<Int32>) throws -> Result
    ) rethrows -> Result? {
        try body(UnsafeBufferPointer(storage.buffer))
    }

    static func == (lhs: CountColumn, rhs: CountColumn) -> Bool {
        lhs.storage === rhs.storage || lhs.elementsEqual(rhs)
    }
}

/// Counts a loop reads in place: an array's, or a ``CountColumn``'s.
protocol ContiguousCounts: Collection<Int32> {
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Int32>) throws -> Result) rethrows -> Result
}

extension Array: ContiguousCounts where Element == Int32 {}
extension CountColumn: ContiguousCounts {}
