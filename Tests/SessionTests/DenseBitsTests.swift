import Testing

@testable import SearchSession

/// Common terms' postings as bits: a probe answers what a search of the list answers.
@Suite struct DenseBitsTests {
    @Test(
        "a probe finds whether the list has a document and its position, for every document",
        arguments: [
            (documents: 1, share: 1), (documents: 64, share: 2), (documents: 65, share: 3),
            (documents: 5_000, share: 4),
            (documents: 5_000, share: 100),
        ])
    func aProbeAnswersWhatASearchOfTheListAnswers(documents: Int, share: Int) {
        var generator = SplitMix64(state: UInt64(documents * 31 + share))
        var docs = (0..<documents).filter { _ in Int.random(in: 0..<share, using: &generator) == 0 }.map(UInt32.init)
        // Both ends of the segment and of a word, whatever the draw.
        docs = Array(Set(docs + [0, UInt32(documents - 1)] + (documents > 64 ? [63, 64] : []))).sorted()
        // A list before it in the same arrays, as a segment stores its lists one after another.
        var words = [UInt64]()
        var ranks = [UInt32]()
        DenseBits.append([1, 2], documents: documents, words: &words, ranks: &ranks)
        DenseBits.append(docs, documents: documents, words: &words, ranks: &ranks)
        let wordCount = DenseBits.wordCount(documents: documents)
        #expect(words.count == 2 * wordCount && ranks.count == words.count)
        words.withUnsafeBufferPointer { words in
            ranks.withUnsafeBufferPointer { ranks in
                let probe = DenseProbe(
                    words: words.baseAddress! + wordCount, ranks: ranks.baseAddress! + wordCount, wordCount: wordCount)
                #expect(probe.count == docs.count)
                for doc in 0..<UInt32(documents) {
                    let position = docs.firstIndex { $0 >= doc } ?? docs.count
                    let found = probe.find(doc)
                    #expect(found.has == (position < docs.count && docs[position] == doc), "\(doc)")
                    #expect(found.position == position, "\(doc)")
                    #expect(probe.position(atLeast: Int(doc)) == position, "\(doc)")
                }
                #expect(probe.position(atLeast: -5) == 0)
                #expect(probe.position(atLeast: documents + 100) == docs.count)
                var walked = [UInt32]()
                PostingDocs.bits(probe).forEach { doc, position in
                    #expect(position == walked.count)
                    walked.append(doc)
                }
                #expect(walked == docs)
                let every = Array(0..<UInt32(documents))
                #expect(PostingDocs.bits(probe).contains(each: every) == every.map { probe.find($0).has })
            }
        }
    }

    @Test func aListOfGapsWalksAndAnswersAsItsNumbersDo() {
        let docs: [UInt32] = [0, 5, 63, 64, 900] + (1_000..<1_300).map(UInt32.init)
        var bytes = [UInt8]()
        DocumentGaps.append(docs, to: &bytes)
        bytes += repeatElement(0, count: DocumentGaps.padding)
        bytes.withUnsafeBufferPointer { bytes in
            let list = PostingDocs.gaps(GapList(bytes: bytes, count: docs.count, limit: 2_000))
            var walked = [(UInt32, Int)]()
            list.forEach { walked.append(($0, $1)) }
            #expect(walked.map(\.0) == docs && walked.map(\.1) == Array(docs.indices))
            let every = Array(0..<UInt32(2_000))
            #expect(list.contains(each: every) == every.map(docs.contains))
        }
    }

    @Test func aSegmentKeepsItsCommonPhrasesAsBitsAndTheirExactMatchesAreTheSame() throws {
        // 3,000 documents: the tag "red" on every other (bits), "blue" on every 75th (gaps); the
        // exact matches of each, in a range that starts and ends inside a word, are those
        // documents, whichever way the segment keeps them.
        let entities = (0..<3_000).map { i in
            Entity(
                type: "t", id: "d\(i)", title: "item \(i)",
                tags: (i % 2 == 0 ? ["red"] : []) + (i % 75 == 0 ? ["blue"] : []))
        }
        let snapshot = SearchEngine(entities: entities).snapshot
        let segment = try #require(snapshot.segments.first)
        for (tag, bits, every) in [("red", true, 2), ("blue", false, 75)] {
            let place = try #require(segment.phrase(hash: Segment.hash(phrase: [tag])))
            #expect((segment.phraseDocs(place, reads: PostingReads()).probe != nil) == bits, "\(tag)")
            let ids = TextIndex.exactMatches([tag], in: snapshot).map { snapshot.entity(at: $0).id }
            #expect(Set(ids) == Set(stride(from: 0, to: 3_000, by: every).map { "d\($0)" }), "\(tag)")
        }
        let red = try #require(segment.phrase(hash: Segment.hash(phrase: ["red"])))
        let probe = try #require(segment.phraseDocs(red, reads: PostingReads()).probe)
        #expect(probe.firstDocument(in: 65..<131) == 66 && probe.lastDocument(in: 65..<131) == 130)
        #expect(probe.firstDocument(in: 65..<66) == nil && probe.lastDocument(in: 65..<66) == nil)
        var walked = [Int]()
        probe.forEach(in: 61..<70) { walked.append($0) }
        #expect(walked == [62, 64, 66, 68])
    }

    @Test func aTermsLiveDocumentsBesideHitsAreTheSameWhetherKeptAsBitsOrNot() throws {
        // 3,000 documents, "red" on every other (bits) and "blue" on every fifth from 1 (gaps,
        // after the red ones are counted: 600 postings); then a second segment re-writes every
        // seventh document (deleting it from the first) and adds 40 red ones. The term's live
        // documents that are not among hits (some the term's, some not, across both segments)
        // are what a plain filter gives.
        let entities = (0..<3_000).map { i in
            Entity(
                type: "t", id: "d\(i)", title: "item \(i)",
                tags: (i % 2 == 0 ? ["red"] : []) + (i % 5 == 1 ? ["blue"] : []))
        }
        var snapshot = CatalogSnapshot(version: 1, entities: entities, synonyms: [])
        let changed =
            stride(from: 0, to: 3_000, by: 7).map { entities[$0] }
            + (0..<40).map { Entity(type: "t", id: "new\($0)", title: "new \($0)", tags: ["red"]) }
        snapshot = snapshot.applying(.upsert(changed), version: 2, generation: 2).0
        let first = try #require(snapshot.segments.first)
        let red = try #require(first.term("red"))
        #expect(first.postings(red, reads: PostingReads()).docs.probe != nil)
        var rng = SplitMix64(state: 5)
        for term in ["red", "blue"] {
            let all = TextIndex.liveDocs(term, in: snapshot)
            let hits = snapshot.liveDocs().filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }
            let expected = all.filter { !Set(hits).contains($0) }
            #expect(TextIndex.liveDocs(term, in: snapshot, except: hits) == expected, "\(term)")
            #expect(TextIndex.liveDocs(term, in: snapshot, except: []) == all, "\(term)")
            #expect(TextIndex.liveDocs(term, in: snapshot, except: all).isEmpty, "\(term)")
        }
    }

    @Test func onlyListsHoldingASixteenthOfTheSegmentAndAThousandPostingsQualify() {
        #expect(DenseBits.qualifies(postings: 6_250, documents: 100_000))
        #expect(!DenseBits.qualifies(postings: 6_249, documents: 100_000))
        #expect(!DenseBits.qualifies(postings: 1_023, documents: 2_000))
        #expect(DenseBits.qualifies(postings: 1_024, documents: 2_000))
    }

    @Test func aSegmentKeepsItsCommonListsAsBitsAndTheOthersAsNumbers() throws {
        // 3,000 documents: "every" is in each, "half" in every other (both qualify), "rare" in 40.
        let entities = (0..<3_000).map { i in
            let words = ["every", "word\(i)"] + (i % 2 == 0 ? ["half"] : []) + (i % 75 == 0 ? ["rare"] : [])
            return Entity(type: "t", id: "d\(i)", title: words.joined(separator: " "))
        }
        let segment = try #require(SearchEngine(entities: entities).snapshot.segments.first)
        let expected: [String: (bits: Bool, docs: [UInt32])] = [
            "every": (true, Array(0..<3_000)), "half": (true, stride(from: 0, to: 3_000, by: 2).map(UInt32.init)),
            "rare": (false, stride(from: 0, to: 3_000, by: 75).map(UInt32.init)),
        ]
        let reads = PostingReads()
        for (term, (bits, docs)) in expected {
            let number = try #require(segment.term(term))
            let postings = segment.postings(number, reads: reads)
            #expect((postings.docs.probe != nil) == bits, "\(term)")
            var walked = [UInt32]()
            postings.docs.forEach { doc, _ in walked.append(doc) }
            #expect(walked == docs, "\(term)")
            #expect(postings.frequencies.count == docs.count && segment.postingCount(number) == docs.count)
        }
        // Every other list is gaps, and they hold the rest of the postings.
        let numbered = (0..<(segment.postingStart.count - 1)).filter { segment.denseBits($0) == nil }
        let decoded = numbered.reduce(0) { total, number in
            guard case .gaps(let list) = segment.postings(number, reads: reads).docs else { return total }
            return total + list.withDecoded(\.count)
        }
        #expect(decoded == Int(segment.postingStart.last!) - 3_000 - 1_500)
    }
}
