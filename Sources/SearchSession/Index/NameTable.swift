/// Distinct names (byte strings) numbered as they arrive and found by their bytes: one arena,
/// their offsets, their hashes and a ``LabelTable``.
///
/// A segment builder meets every term of every document and every repeated name (types, tags,
/// values) through such a table: a dictionary keyed by Strings made a String of each token and
/// hashed it with the standard library's hasher, a third of building the segment of an upsert
/// of 100 long-text entities. Names are hashed with ``NameTable/hash(_:)`` (FNV-1a, the hash of
/// ``Segment``'s term table), so a term's hash serves both.
struct NameTable: Sendable {
    /// The names' bytes, one after another.
    private(set) var bytes: [UInt8] = []
    /// Where name `n` starts (`offsets[n]`) and ends (`offsets[n + 1]`) in ``bytes``.
    private(set) var offsets: [UInt32] = [0]
    /// Per name: its ``hash(_:)``.
    private(set) var hashes: [UInt64] = []
    private var table = LabelTable()

    /// How many names there are.
    var count: Int { hashes.count }

    /// The number of `name`, whose ``hash(_:)`` is `hash`, if it has one.
    func number(of name: UnsafeBufferPointer<UInt8>, hash: UInt64) -> UInt32? {
        bytes.withUnsafeBufferPointer { arena in
            table.number(hash: Self.slot(hash)) { number in
                hashes[number] == hash && Self.equal(name, arena, Int(offsets[number]), Int(offsets[number + 1]))
            }
        }.map { UInt32($0) }
    }

    /// The number of `name`: the one it has, or the next one, given to it now.
    mutating func number(of name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let hash = Self.hash(name)
        if let known = number(of: name, hash: hash) { return known }
        let number = UInt32(count)
        bytes.append(contentsOf: name)
        offsets.append(UInt32(bytes.count))
        hashes.append(hash)
        table.add(Int32(number), hash: Self.slot(hash), count: count) { Self.slot(hashes[$0]) }
        return number
    }

    /// The number of `name`: the one it has, or the next one, given to it now.
    mutating func number(of name: String) -> UInt32 {
        var name = name
        return name.withUTF8 { number(of: $0) }
    }

    /// The bytes of name `number`, for as long as `body` runs.
    func withName<Result>(_ number: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { arena in
            body(UnsafeBufferPointer(rebasing: arena[Int(offsets[Int(number)])..<Int(offsets[Int(number) + 1])]))
        }
    }

    /// Name `number` as a String.
    func name(_ number: UInt32) -> String {
        withName(number) { String(decoding: $0, as: UTF8.self) }
    }

    /// FNV-1a (64 bits) of `bytes`: the hash of segments' term tables (``Segment/hash(_:)``).
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        continuing(offsetBasis, with: bytes)
    }

    /// FNV-1a's starting value.
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a's multiplier.
    private static let prime: UInt64 = 0x100_0000_01b3

    /// FNV-1a of what `hash` was the hash of, followed by `bytes` (a phrase's hash is its terms'
    /// bytes with a space between each two, hashed as they come).
    static func continuing(_ hash: UInt64, with bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = continuing(hash, with: byte) }
        return hash
    }

    /// FNV-1a of what `hash` was the hash of, followed by `byte`.
    static func continuing(_ hash: UInt64, with byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* prime }

    /// The table slot of a hash: FNV's high bits never reach its low ones, which alone would
    /// pick the slot of a small table, so the high half is folded in.
    private static func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash ^ hash >> 32) }

    private static func equal(
        _ name: UnsafeBufferPointer<UInt8>, _ arena: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int
    ) -> Bool {
        end - start == name.count && UnsafeBufferPointer(rebasing: arena[start..<end]).elementsEqual(name)
    }
}
