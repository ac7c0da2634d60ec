extension CatalogSnapshot {
    /// The entity types of the live entities, sorted (from the snapshot's facet counts).
    public var entityTypes: [String] {
        let counts = everythingCounts.types
        return numbering.typeNames.enumerated().filter { counts[$0.offset] > 0 }.map(\.element).sorted()
    }

    /// 16 hex digits summarising every live entity, whole: the wrapping sum of a 64-bit hash of
    /// each entity's log record (CatalogChange+Binary, which sorts attributes), so equal catalogs
    /// give equal digests whatever their segments and order, in every process (no seeded hashing).
    /// Costs a pass over the catalog.
    public var digest: String {
        var sum: UInt64 = 0
        // One entity at a time: a catalog-sized array of entities would only be thrown away.
        for (si, segment) in segments.enumerated() {
            for doc in 0..<segment.count where !deletes[si].contains(doc) {
                sum &+= Self.mix(Self.fnv1a(CatalogChange.encode(segment.entity(doc))))
            }
        }
        let hex = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// FNV-1a, 64-bit.
    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// SplitMix64's finaliser: spreads each entity's hash over all bits, so a sum of them does
    /// not cancel out the way sums of raw FNV values of similar records can.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
