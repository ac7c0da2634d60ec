/// A term's or an exact phrase's documents in its segment: packed gaps (``DocumentGaps``), or
/// bits for a common one (``DenseBits``).
enum PostingDocs {
    case gaps(GapList)
    case bits(DenseProbe)

    /// The bits, for a common term's list.
    var probe: DenseProbe? {
        if case .bits(let probe) = self { probe } else { nil }
    }

    /// Calls `body` with each document, ascending, and its position in the list.
    @inline(__always) func forEach(_ body: (_ doc: UInt32, _ position: Int) -> Void) {
        switch self {
        case .gaps(let list):
            list.withDecoded { docs in
                for position in docs.indices { body(docs[position], position) }
            }
        case .bits(let probe):
            probe.forEach(body)
        }
    }

    /// Which of `docs` (ascending) the list has, in one pass over it.
    func contains(each docs: [UInt32]) -> [Bool] {
        var found = [Bool](repeating: false, count: docs.count)
        switch self {
        case .bits(let probe):
            for (at, doc) in docs.enumerated() { found[at] = Int(doc) < probe.wordCount * 64 && probe.find(doc).has }
        case .gaps(let list):
            list.withDecoded { listed in
                var next = 0
                for (at, doc) in docs.enumerated() {
                    while next < listed.count && listed[next] < doc { next += 1 }
                    found[at] = next < listed.count && listed[next] == doc
                }
            }
        }
        return found
    }
}

/// One list of a segment's ``DocumentGaps``, and what decoding it needs.
struct GapList {
    let bytes: UnsafeBufferPointer<UInt8>
    /// How many documents it holds (its term's postings).
    let count: Int
    /// The segment's document count: no document the list names is past it.
    let limit: Int

    /// Decodes the list into `out`, which has room for ``count``; returns how many it wrote.
    func decode(into out: UnsafeMutablePointer<UInt32>) -> Int {
        DocumentGaps.decode(bytes, limit: limit, into: out, capacity: count)
    }

    /// Lends the decoded documents to `body`.
    func withDecoded<R>(_ body: (UnsafeBufferPointer<UInt32>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(count, 1)) { buffer in
            let written = decode(into: buffer.baseAddress!)
            return body(UnsafeBufferPointer(rebasing: buffer[0..<written]))
        }
    }
}
