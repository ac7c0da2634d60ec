internal import Synchronization

/// A term as each segment of a snapshot numbers it.
struct SegmentTerms: Sendable {
    /// Per segment, the term's number there, or -1 where the segment does not have it.
    let numbers: [Int32]
    /// How many documents of all segments have the term, deleted ones included.
    let documentFrequency: Int
}

/// Where a segment lists the documents of an exact phrase.
struct SegmentPhrase: Sendable {
    /// The segment's position in the snapshot.
    let segment: Int
    /// The phrase's place in the segment's phrase table (see ``Segment/phraseDocs(_:reads:)``).
    let phrase: Int
}

extension CatalogSnapshot {
    /// The most terms, and the most phrases, a snapshot keeps numbered; past it that cache starts
    /// again (a search reads a handful of each, and a snapshot lives until the next write or merge).
    static let termsKept = 4_096

    /// The term of `key` as each segment numbers it: looked up in every segment's term table once
    /// per snapshot and term, not by every step of every search once per segment. Under writes a
    /// snapshot holds tens of small segments, and those lookups (a probe of each segment's table
    /// and a compare of the term's bytes, in memory searches rarely touch) were most of what each
    /// segment added to a Capture.
    func terms(_ key: TermKey) -> SegmentTerms {
        if let known = termsCache.withLock({ $0[key.text] }) { return known }
        var numbers = [Int32]()
        numbers.reserveCapacity(segments.count)
        var documentFrequency = 0
        for segment in segments {
            guard let number = segment.term(key) else {
                numbers.append(-1)
                continue
            }
            numbers.append(Int32(number))
            documentFrequency += Int(segment.postingStart[number + 1] - segment.postingStart[number])
        }
        let found = SegmentTerms(numbers: numbers, documentFrequency: documentFrequency)
        termsCache.withLock { cache in
            if cache.count >= Self.termsKept { cache.removeAll(keepingCapacity: true) }
            cache[key.text] = found
        }
        return found
    }

    /// The segments whose titles or tags have the exact phrase of `hash` (``Segment/hash(phrase:)``)
    /// and where they list it: searched for in every segment once per snapshot and phrase, as
    /// ``terms(_:)`` does for terms.
    func phrases(_ hash: UInt64) -> [SegmentPhrase] {
        if let known = phrasesCache.withLock({ $0[hash] }) { return known }
        var found = [SegmentPhrase]()
        for (position, segment) in segments.enumerated() {
            if let phrase = segment.phrase(hash: hash) {
                found.append(SegmentPhrase(segment: position, phrase: phrase))
            }
        }
        phrasesCache.withLock { cache in
            if cache.count >= Self.termsKept { cache.removeAll(keepingCapacity: true) }
            cache[hash] = found
        }
        return found
    }
}
