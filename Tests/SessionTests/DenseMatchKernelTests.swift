import CVectorKernels
import Testing

/// The C loop that intersects common terms' bit lists and scores each match (with POPCNT where
/// the CPU has it, and the portable loop) against a plain loop that sums as SearchSession's
/// general matching loop does (each term's frequency times its idf, a group's terms in their
/// summing order, each group's sum times its weight, groups in order): the same documents and
/// bit-for-bit the same scores, for one to five terms in every kind of grouping (a group per
/// term, as the loop unrolled for two and three terms reads them, and groups of several), with
/// and without deleted documents, over ranges that start and end inside a word.
@Suite struct DenseMatchKernelTests {
    struct List {
        var words: [UInt64]
        var ranks: [UInt32]
        var codes: [UInt8]
        var values: [Float]
        var idf: Float
    }

    static func list(documents: Int, share: Double, rng: inout SplitMix64) -> List {
        let wordCount = (documents + 63) / 64
        var words = [UInt64](repeating: 0, count: wordCount)
        for doc in 0..<documents where Double.random(in: 0..<1, using: &rng) < share {
            words[doc >> 6] |= 1 << UInt64(doc & 63)
        }
        var ranks = [UInt32]()
        var total: UInt32 = 0
        for word in words {
            ranks.append(total)
            total += UInt32(word.nonzeroBitCount)
        }
        let tableSize = 1 << Int.random(in: 0...8, using: &rng)
        let values = (0..<tableSize).map { _ in Float.random(in: 0.1..<2.5, using: &rng) }.sorted()
        // Codes past the table are masked into it, as the segment's reader does.
        let codes = (0..<Int(total)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let idf = Float.random(in: 0.5..<9, using: &rng)
        return List(words: words, ranks: ranks, codes: codes, values: values, idf: idf)
    }

    /// The documents of `low ..< high` every list has, less deleted ones, with their scores.
    static func expected(
        _ lists: [List], groups: [[Int]], weights: [Float], low: Int, high: Int, deleted: [UInt64]?
    ) -> (locals: [Int32], scores: [Float]) {
        var locals = [Int32]()
        var scores = [Float]()
        for doc in low..<high {
            let index = doc >> 6
            let bit = UInt64(1) << UInt64(doc & 63)
            guard lists.allSatisfy({ $0.words[index] & bit != 0 }) else { continue }
            if let deleted, deleted[index] & bit != 0 { continue }
            let contributions = lists.map { list in
                let position = Int(list.ranks[index]) + (list.words[index] & (bit - 1)).nonzeroBitCount
                return list.values[Int(list.codes[position]) & (list.values.count - 1)] * list.idf
            }
            var score: Float = 0
            for (group, terms) in groups.enumerated() {
                var groupScore = contributions[terms[0]]
                for term in terms.dropFirst() { groupScore += contributions[term] }
                score += groupScore * weights[group]
            }
            locals.append(Int32(doc))
            scores.append(score)
        }
        return (locals, scores)
    }

    /// Every way of cutting `terms` (in a shuffled summing order) into consecutive groups.
    static func groupings(of terms: Int, rng: inout SplitMix64) -> [[[Int]]] {
        let order = Array(0..<terms).shuffled(using: &rng)
        return (0..<(1 << (terms - 1))).map { cuts in
            var groups = [[order[0]]]
            for position in 1..<terms {
                if cuts & (1 << (position - 1)) != 0 { groups.append([]) }
                groups[groups.count - 1].append(order[position])
            }
            return groups
        }
    }

    @Test(arguments: [(1, 11), (2, 12), (3, 13), (4, 14), (5, 15)])
    func theKernelMatchesAndScoresAsThePlainLoop(terms: Int, seed: UInt64) {
        var rng = SplitMix64(state: seed)
        let documents = 40_000
        let lists = (0..<terms).map { _ in
            Self.list(documents: documents, share: Double.random(in: 0.3..<0.95, using: &rng), rng: &rng)
        }
        var deletedWords = [UInt64](repeating: 0, count: (documents + 63) / 64)
        for doc in 0..<documents where Int.random(in: 0..<10, using: &rng) == 0 {
            deletedWords[doc >> 6] |= 1 << UInt64(doc & 63)
        }
        let ranges = [(0, documents), (37, 1_000), (64, 128), (5_001, 5_002), (16_300, 16_500), (39_990, 40_000)]
        for groups in Self.groupings(of: terms, rng: &rng) {
            let weights = groups.map { _ in Float.random(in: 0.05...1, using: &rng) }
            for (low, high) in ranges {
                for deleted in [nil, deletedWords] {
                    let want = Self.expected(
                        lists, groups: groups, weights: weights, low: low, high: high, deleted: deleted)
                    for portable in [false, true] {
                        let got = Self.run(
                            lists, groups: groups, weights: weights, low: low, high: high, deleted: deleted,
                            portable: portable)
                        let context = "\(groups) \(low)..<\(high) deleted: \(deleted != nil) portable: \(portable)"
                        #expect(got.locals == want.locals, "\(context)")
                        #expect(got.scores.map { $0.bitPattern } == want.scores.map { $0.bitPattern }, "\(context)")
                    }
                }
            }
        }
    }

    /// The kernel on `lists` (the one this CPU runs, or the portable one), the deleted bits
    /// handed over from the range's first word on.
    static func run(
        _ lists: [List], groups: [[Int]], weights: [Float], low: Int, high: Int, deleted: [UInt64]?, portable: Bool
    ) -> (locals: [Int32], scores: [Float]) {
        // Every array the kernel reads is copied to memory that outlives the call.
        let words = lists.map { list in list.words.withUnsafeBufferPointer { copy($0) } }
        let ranks = lists.map { list in list.ranks.withUnsafeBufferPointer { copy($0) } }
        let codes = lists.map { list in list.codes.withUnsafeBufferPointer { copy($0) } }
        let values = lists.map { list in list.values.withUnsafeBufferPointer { copy($0) } }
        let wordPointers = copy(words.map { UnsafePointer($0) as UnsafePointer<UInt64>? })
        let rankPointers = copy(ranks.map { UnsafePointer($0) as UnsafePointer<UInt32>? })
        let codePointers = copy(codes.map { UnsafePointer($0) as UnsafePointer<UInt8>? })
        let valuePointers = copy(values.map { UnsafePointer($0) as UnsafePointer<Float>? })
        let masks = copy(lists.map { $0.values.count - 1 })
        let idfs = copy(lists.map(\.idf))
        let sumTerms = copy(groups.flatMap { $0 })
        let sumEnds = copy(groups.indices.map { groups[...$0].reduce(0) { $0 + $1.count } })
        let groupWeights = copy(weights)
        let contributions = copy([Float](repeating: 0, count: lists.count))
        let locals = copy([Int32](repeating: 0, count: high - low))
        let scores = copy([Float](repeating: 0, count: high - low))
        let firstWord = (low >> 6) << 6
        let deletedFromFirstWord = deleted.map { copy(Array($0[(firstWord >> 6)...])) }
        defer {
            for pointer in words { pointer.deallocate() }
            for pointer in ranks { pointer.deallocate() }
            for pointer in codes { pointer.deallocate() }
            for pointer in values { pointer.deallocate() }
            wordPointers.deallocate()
            rankPointers.deallocate()
            codePointers.deallocate()
            valuePointers.deallocate()
            masks.deallocate()
            idfs.deallocate()
            sumTerms.deallocate()
            sumEnds.deallocate()
            groupWeights.deallocate()
            contributions.deallocate()
            locals.deallocate()
            scores.deallocate()
            deletedFromFirstWord?.deallocate()
        }
        var match = cvk_dense_match(
            term_count: lists.count, words: wordPointers, ranks: rankPointers, codes: codePointers,
            values: valuePointers, value_masks: masks, idfs: idfs, group_count: groups.count, sum_terms: sumTerms,
            sum_ends: sumEnds, weights: groupWeights, contributions: contributions)
        let kernel = portable ? cvk_match_dense_portable : cvk_match_dense
        let count = kernel(&match, low, high, deletedFromFirstWord, deleted == nil ? 0 : firstWord, locals, scores)
        let found = Array(UnsafeBufferPointer(start: locals, count: count))
        return (found, Array(UnsafeBufferPointer(start: scores, count: count)))
    }

    static func copy<Element>(_ array: [Element]) -> UnsafeMutablePointer<Element> {
        array.withUnsafeBufferPointer { copy($0) }
    }

    static func copy<Element>(_ buffer: UnsafeBufferPointer<Element>) -> UnsafeMutablePointer<Element> {
        let pointer = UnsafeMutablePointer<Element>.allocate(capacity: max(buffer.count, 1))
        if let base = buffer.baseAddress { pointer.initialize(from: base, count: buffer.count) }
        return pointer
    }
}
