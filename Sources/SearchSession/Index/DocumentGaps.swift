/// Ascending document numbers as the gaps between them, each less one (the first: the number
/// itself), in blocks of up to 128 packed at the bit width the block's largest gap needs: how a
/// segment keeps the lists of its terms that are not common enough for bits (``DenseBits``)
/// and its exact-phrase lists.
///
/// A block is a byte with its width, a byte with its count less one, then its gaps end to end
/// (little-endian, the first in the lowest bits) in whole bytes. Such a list is read whole, or
/// walked from its start: a search decodes the lists it intersects (in a segment of 16,384
/// documents or more, none of them more than a sixteenth of it), at about a nanosecond a
/// number. As 32-bit numbers these lists were most of a segment's resident pages after a Capture
/// load; packed they take a third or less (the sparse catalog's 6.3 MiB of such postings take
/// 2.2, the listings catalog's 9.4 take 2.9, and its phrase lists 8.3 MiB take 2.0, with 0.75 of
/// bits for its common phrases).
///
/// A reader may load 8 bytes from anywhere in a list, so the section that holds the lists ends
/// with ``padding`` bytes.
enum DocumentGaps {
    static let blockSize = 128
    static let padding = 8

    /// Appends `docs` (ascending, distinct) to `bytes`.
    static func append(_ docs: some Collection<UInt32>, to bytes: inout [UInt8]) {
        // Each block is read twice, for its widest gap and then to write: no array of gaps, an
        // allocation per term for a segment's thousands of terms with a document or two.
        var previous: Int64 = -1
        var blockStart = docs.startIndex
        var remaining = docs.count
        while remaining > 0 {
            let count = min(remaining, blockSize)
            let block = docs[blockStart..<docs.index(blockStart, offsetBy: count)]
            var widest: UInt32 = 0
            var last = previous
            for doc in block {
                widest = max(widest, UInt32(Int64(doc) - last - 1))
                last = Int64(doc)
            }
            let width = UInt32.bitWidth - widest.leadingZeroBitCount
            bytes.append(UInt8(width))
            bytes.append(UInt8(count - 1))
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: (width * count + 7) / 8))
            if width > 0 {
                for (position, doc) in block.enumerated() {
                    let gap = UInt32(Int64(doc) - previous - 1)
                    previous = Int64(doc)
                    let bit = position * width
                    // At most 32 bits from a byte boundary plus 7: within the 5 bytes from bit / 8.
                    let shifted = UInt64(gap) << UInt64(bit & 7)
                    for byte in 0..<5 where start + bit / 8 + byte < bytes.count {
                        bytes[start + bit / 8 + byte] |= UInt8(truncatingIfNeeded: shifted >> UInt64(byte * 8))
                    }
                }
            }
            previous = last
            remaining -= count
            blockStart = block.endIndex
        }
    }

    /// How many documents the list in `bytes` holds, by its blocks' counts.
    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var total = 0
        var at = 0
        while at + 2 <= bytes.count {
            let width = Int(bytes[at])
            let count = Int(bytes[at + 1]) + 1
            total += count
            at += 2 + (width * count + 7) / 8
        }
        return total
    }

    /// Decodes the list in `bytes` into `out`, which has room for `capacity` documents; returns
    /// how many it wrote. Bytes that were not written by ``append(_:to:)`` end the list where they
    /// stop making sense (a block longer than the bytes, a width past 32, a document at or past
    /// `limit`, the segment's document count), never read past the list's section or name a
    /// document the segment does not have.
    ///
    /// `bytes` must be followed by ``padding`` readable bytes (the section's).
    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, limit: Int, into out: UnsafeMutablePointer<UInt32>, capacity: Int
    ) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let limit = Int64(limit)
        var written = 0
        var previous: Int64 = -1
        var at = 0
        while at + 2 <= bytes.count {
            let width = Int(bytes[at])
            let count = Int(bytes[at + 1]) + 1
            let start = at + 2
            at = start + (width * count + 7) / 8
            guard width <= 32, at <= bytes.count, written + count <= capacity else { break }
            let mask: UInt64 = width == 0 ? 0 : (1 << UInt64(width)) - 1
            for position in 0..<count {
                let bit = position &* width
                let word = UInt64(
                    littleEndian: raw.loadUnaligned(fromByteOffset: start &+ bit &>> 3, as: UInt64.self))
                previous &+= 1 &+ Int64(truncatingIfNeeded: (word &>> UInt64(bit & 7)) & mask)
                if previous >= limit { return written }
                out[written] = UInt32(truncatingIfNeeded: previous)
                written &+= 1
            }
        }
        return written
    }

    /// The documents of the list in `bytes`, ascending (see ``decode(_:limit:into:capacity:)``).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> [UInt32] {
        let capacity = count(bytes)
        return [UInt32](unsafeUninitializedCapacity: capacity) { buffer, written in
            guard let out = buffer.baseAddress else {
                written = 0
                return
            }
            written = decode(bytes, limit: limit, into: out, capacity: capacity)
        }
    }
}
