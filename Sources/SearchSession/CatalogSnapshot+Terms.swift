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
        return keep(
            key, Self.looked(up: key, in: segments[...], after: SegmentTerms(numbers: [], documentFrequency: 0)))
    }

    /// ``terms(_:)``, taken over from `previous` where it numbered the term already: `previous`'s
    /// segments are the first of this snapshot's (a write's, which appends one), so only the
    /// segments after them are looked up. A write's carry-over asks this for every kept term, and
    /// looking each up in every segment again took 10 % of an upsert of 100 into archive-100k.
    func terms(_ key: TermKey, after previous: CatalogSnapshot) -> SegmentTerms {
        if let known = termsCache.withLock({ $0[key.text] }) { return known }
        guard let earlier = previous.termsCache.withLock({ $0[key.text] }),
            earlier.numbers.count == previous.segments.count, previous.segments.count <= segments.count
        else { return terms(key) }
        return keep(key, Self.looked(up: key, in: segments[previous.segments.count...], after: earlier))
    }

    /// `earlier` (the term in the segments before `added`) with the term looked up in `added`.
    private static func looked(up key: TermKey, in added: ArraySlice<Segment>, after earlier: SegmentTerms)
        -> SegmentTerms
    {
        var numbers = earlier.numbers
        numbers.reserveCapacity(numbers.count + added.count)
        var documentFrequency = earlier.documentFrequency
        for segment in added {
            guard let number = segment.term(key) else {
                numbers.append(-1)
                continue
            }
            numbers.append(Int32(number))
            documentFrequency += Int(segment.postingStart[number + 1] - segment.postingStart[number])
        }
        return SegmentTerms(numbers: numbers, documentFrequency: documentFrequency)
    }

    /// Keeps `found` as `key`'s numbers in this snapshot, and returns it.
    private func keep(_ key: TermKey, _ found: SegmentTerms) -> SegmentTerms {
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
