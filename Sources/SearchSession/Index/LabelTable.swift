/// Numbers of labels found by their text: open addressing over labels kept elsewhere (a
/// ``ValueLabels``), each slot a number + 1 (0 empty), a power of two long and at most half full.
///
/// Four bytes a slot where a dictionary keyed by the labels as Strings took about fifty a label
/// (1.76 MiB on listings-100k's 35,000 string values, 4.4 MiB with the Strings on jobs-100k's
/// 35,000 category paths). The table holds no text: the caller hashes a label and tells whether
/// a number's label is the one looked for.
struct LabelTable: Sendable {
    private var slots: [Int32] = []

    /// The first number on `hash`'s chain that `matches`, if any.
    func number(hash: Int, where matches: (Int) -> Bool) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if matches(number) { return Int32(number) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Adds `number`, the last of `count` labels, whose label hashes to `hash`; past half full the
    /// table doubles and places every label again (`hashOf` hashes label `n`).
    mutating func add(_ number: Int32, hash: Int, count: Int, hashOf: (Int) -> Int) {
        if count * 2 > slots.count {
            rebuild(count: count, hashOf: hashOf)
        } else {
            place(number, hash: hash)
        }
    }

    /// Makes the table at least twice `count` long and places labels `0..<count`.
    mutating func rebuild(count: Int, hashOf: (Int) -> Int) {
        var size = max(64, slots.count)
        while size < count * 2 { size *= 2 }
        slots = [Int32](repeating: 0, count: size)
        for number in 0..<count { place(Int32(number), hash: hashOf(number)) }
    }

    /// Puts `number` in the first free slot from `hash`.
    private mutating func place(_ number: Int32, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = number + 1
    }

    /// The bytes the slots hold.
    var bytes: Int { 4 * slots.count }
}
