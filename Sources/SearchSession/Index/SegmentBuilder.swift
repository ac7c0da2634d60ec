internal import Foundation

/// Builds an index segment from entities, one at a time, in document order.
///
/// Everything but the text is numbered as it arrives (names, types, categories, attributes and
/// their string values) into compact columns, so a large catalog streams in without its entities
/// held in memory. ``finish(analyzer:)`` then analyzes each document's text from those columns into
/// postings (BM25F-normalised with the segment's average field lengths, see ``TextField``) and
/// writes the flat sections of ``SegmentFormat``; the analyzer is needed only then, so a catalog
/// file's synonym lines may come after its entities.
struct SegmentBuilder {
    // Strings of one document (titles, URLs) are appended without a lookup; names that repeat
    // (types, tags, categories, attribute values, locales, terms) are stored once.
    private var stringBytes: [UInt8] = []
    private var stringOffsets: [UInt32] = [0, 0]  // string 0 is ""
    private var names = SegmentBuilder.namesFromEmpty()

    private var docType: [UInt32] = []
    private var docID: [UInt32] = []
    private var docTitle: [UInt32] = []
    private var docSubtitle: [UInt32] = []
    private var docImage: [UInt32] = []
    private var docThumbnail: [UInt32] = []
    private var docLink: [UInt32] = []
    private var docCategory: [UInt32] = []
    private var docTitleSortKey: [UInt32] = []
    private var docTagStart: [UInt32] = [0]
    private var tags: [UInt32] = []
    private var docAttributeStart: [UInt32] = [0]
    /// Per pair: a string value number, or `numberMark` | the number's arrival number (made
    /// segment value ids by ``finish(analyzer:)``, once the numbers can be put in order).
    private var pairValue: [UInt32] = []
    private var docLocalizedStart: [UInt32] = [0]
    private var localizedLocale: [UInt32] = []
    private var localizedTitle: [UInt32] = []
    private var localizedSubtitle: [UInt32] = []
    private var docRelatedStart: [UInt32] = [0]
    private var relatedType: [UInt32] = []
    private var relatedID: [UInt32] = []

    // Types, categories, attributes and values are found by their text's canonical key
    // (``CanonicalKeys``: bytes hashed in a name table, equivalent spellings one key):
    // dictionaries keyed by Strings hashed each with the standard library's hasher, and a String
    // made for each ancestor of a category path, were a fifth of adding an entity.
    private var keys = CanonicalKeys()
    private var typeOfKey = KeyNumbers()
    private var typeNames: [UInt32] = []
    private var categoryOfKey = KeyNumbers()
    private var categoryNames: [UInt32] = []
    private var categoryParent: [UInt32] = []
    private var attributeOfKey = KeyNumbers()
    private var attributeNames: [UInt32] = []
    private var attributeKinds: [UInt8] = []
    private var attributeMinimum: [Double] = []
    private var attributeMaximum: [Double] = []
    /// By attribute number << 32 | the value's canonical key.
    private var valueNumbers: [UInt64: UInt32] = [:]
    private var valueStrings: [UInt32] = []
    private var valueAttribute: [UInt32] = []
    /// Distinct numbers per attribute, in arrival order.
    private var numberArrivals: [NumberKey: UInt32] = [:]
    private var arrivedNumbers: [(attribute: UInt32, value: Double)] = []
    private static let numberMark: UInt32 = 1 << 31

    private struct NumberKey: Hashable {
        var attribute: UInt32
        var value: Double
    }

    private var refs: [(hash: UInt64, doc: UInt32)] = []
    private var vectors: [String: VectorIndex] = [:]
    private var vectorOrder: [String] = []
    private var vectorModelNames: [UInt32] = []

    /// Term counts per ``TextField``, in field order.
    struct FieldCounts {
        var title: UInt16 = 0
        var tags: UInt16 = 0
        var subtitle: UInt16 = 0
        var category: UInt16 = 0

        subscript(field: TextField) -> UInt16 {
            get {
                switch field {
                case .title: title
                case .tags: tags
                case .subtitle: subtitle
                case .category: category
                }
            }
            set {
                switch field {
                case .title: title = newValue
                case .tags: tags = newValue
                case .subtitle: subtitle = newValue
                case .category: category = newValue
                }
            }
        }
    }

    /// The documents' keypoints, written to a file of their own (see ``LocalFeatureTable``).
    private var localFeatures = LocalFeatureTable.Builder()
    /// Writes and merges build segments beside searches: the build gives way to them (see
    /// ``YieldPoint``) between documents.
    private var yieldPoint = YieldPoint()

    /// How many documents were added.
    var count: Int { docType.count }

    init() {}

    /// Adds an entity as the next document. Entities must have been validated (see
    /// `Entity.validate()`), and one reference must not be added twice.
    mutating func add(_ entity: Entity) {
        yieldPoint.pass()
        let doc = UInt32(docType.count)
        localFeatures.add(entity.localFeatures)
        docType.append(number(ofType: entity.type))
        docID.append(string(entity.id))
        docTitle.append(string(entity.title))
        docSubtitle.append(string(entity.subtitle))
        docImage.append(string(entity.imageURL))
        docThumbnail.append(string(entity.thumbnailURL))
        docLink.append(string(entity.link))
        docTitleSortKey.append(sortKey(ofTitle: entity.title))
        docCategory.append(entity.category.isEmpty ? .max : number(ofCategory: entity.category))
        for tag in entity.tags { tags.append(name(tag)) }
        docTagStart.append(UInt32(tags.count))
        // Attributes in name order, so a document's pairs read the same whatever the input order.
        for (name, attributeValue) in entity.attributes.sorted(by: { $0.key < $1.key }) {
            let attribute = number(ofAttribute: name)
            switch attributeValue {
            case .string(let value):
                attributeKinds[Int(attribute)] |= 2
                pairValue.append(number(ofValue: value, attribute: attribute))
            case .number(let value):
                noteNumber(value, of: attribute)
                pairValue.append(Self.numberMark | arrival(of: value, attribute: attribute))
            }
        }
        docAttributeStart.append(UInt32(pairValue.count))
        for locale in entity.localized.keys.sorted() {
            let text = entity.localized[locale]!
            localizedLocale.append(name(locale))
            localizedTitle.append(string(text.title))
            localizedSubtitle.append(string(text.subtitle))
        }
        docLocalizedStart.append(UInt32(localizedLocale.count))
        for related in entity.related {
            relatedType.append(name(related.type))
            relatedID.append(string(related.id))
        }
        docRelatedStart.append(UInt32(relatedType.count))
        refs.append((Segment.hash(type: entity.type, id: entity.id), doc))
        for print in entity.prints {
            if vectors[print.model] == nil {
                vectors[print.model] = VectorIndex(model: print.model, dimension: print.values.count)
                vectorOrder.append(print.model)
                vectorModelNames.append(name(print.model))
            }
            // Validation keeps one dimension per model within a batch; a mismatch is skipped here.
            if vectors[print.model]!.dimension == print.values.count {
                vectors[print.model]!.add(doc: Int32(doc), values: print.values)
            }
        }
    }

    /// Keeps an attribute's kinds (a number, all integers) and range up to date with a number of it.
    private mutating func noteNumber(_ value: Double, of attribute: UInt32) {
        if attributeKinds[Int(attribute)] & 1 == 0 {
            attributeKinds[Int(attribute)] |= 1 | 4
            attributeMinimum[Int(attribute)] = value
            attributeMaximum[Int(attribute)] = value
        }
        if value.rounded() != value { attributeKinds[Int(attribute)] &= ~4 }
        attributeMinimum[Int(attribute)] = min(attributeMinimum[Int(attribute)], value)
        attributeMaximum[Int(attribute)] = max(attributeMaximum[Int(attribute)], value)
    }

    /// Postings and phrases being built by ``finish(analyzer:)``.
    private struct TextBuild {
        /// The builder's names and, after them, the terms that are no name of its own.
        var names: NameTable
        /// Per name number: its term number, if it is a term (yet).
        var termOfName = KeyNumbers()
        /// Per term number: its name number.
        var terms: [UInt32] = []
        /// Postings in the order documents were indexed: per posting its term, its document and
        /// the term's count in each field of it. One array each, not one per term: the
        /// thousands of small arrays of a batch's terms were a third of building its segment
        /// (retained, released, freed one by one).
        var postingTerms: [UInt32] = []
        var postingDocs: [UInt32] = []
        var postingCounts: [FieldCounts] = []
        /// Per term: how many postings it has.
        var postingsOfTerm: [UInt32] = []
        /// Per document: its field lengths in terms.
        var fieldLengths: [FieldCounts] = []
        /// Phrases as met, a (hash, document) pair each, put in order by ``addText(_:to:)``. One
        /// array, not one per phrase: freeing a dictionary of small arrays, and the one of names
        /// analyzed once below, was a tenth of building an upsert's segment.
        var phrasePostings: [(hash: UInt64, doc: UInt32)] = []
        /// Names analyzed once (a tag or a category path repeats across many documents), by name
        /// number: their analysis's number in ``analyses``, once analyzed…
        var analysisOfName = KeyNumbers()
        /// …per analysis: where its term numbers are in ``analyzedTerms``, and the hash of them as
        /// a phrase (`nil` when there are none).
        var analyses: [(terms: Range<Int>, phrase: UInt64?)] = []
        var analyzedTerms: [UInt32] = []
        /// The document being indexed: its terms with their counts per field, in the order met…
        var documentTerms: [(term: UInt32, counts: FieldCounts)] = []
        /// …and per term number, its place there + 1 (0 when the document has not met it).
        var placeInDocument: [Int32] = []

        init(names: NameTable) { self.names = names }

        mutating func termNumber(_ term: UnsafeBufferPointer<UInt8>) -> UInt32 {
            let name = names.number(of: term)
            if let known = termOfName[name] { return known }
            let number = UInt32(terms.count)
            termOfName[name] = number
            terms.append(name)
            postingsOfTerm.append(0)
            placeInDocument.append(0)
            return number
        }

        /// Counts term `number` once more in `field` of the document being indexed.
        mutating func count(_ number: UInt32, in field: TextField) {
            // A long text has hundreds of terms: each finds its place in the document by its
            // number, not by a search of the terms met before it.
            let place = Int(placeInDocument[Int(number)])
            if place != 0 {
                documentTerms[place - 1].counts[field] &+= 1
            } else {
                var counts = FieldCounts()
                counts[field] = 1
                documentTerms.append((number, counts))
                placeInDocument[Int(number)] = Int32(documentTerms.count)
            }
        }

        /// Counts each term of `run` in `field`, numbering the terms not met before.
        mutating func count(_ run: TermRun, in field: TextField) {
            run.forEach { count(termNumber($0), in: field) }
        }

        /// Counts the terms of name `name` (a tag or a category path) in `field`, analyzing the
        /// name the first time it is met.
        ///
        /// - Returns: How many terms it has, and the hash of them as a phrase (`nil` when none).
        mutating func count(name: UInt32, in field: TextField, analyzer: Analyzer) -> (terms: Int, phrase: UInt64?) {
            let analysis: (terms: Range<Int>, phrase: UInt64?)
            if let known = analysisOfName[name] {
                analysis = analyses[Int(known)]
            } else {
                let run = names.withName(name) { analyzer.termRun(utf8: $0) }
                let start = analyzedTerms.count
                run.forEach { analyzedTerms.append(termNumber($0)) }
                analysis = (start..<analyzedTerms.count, run.phraseHash)
                analysisOfName[name] = UInt32(analyses.count)
                analyses.append(analysis)
            }
            for position in analysis.terms { count(analyzedTerms[position], in: field) }
            return (analysis.terms.count, analysis.phrase)
        }
    }

    /// Analyzes a document's text fields (read back from the columns) into postings and phrases.
    private func index(_ doc: Int, analyzer: Analyzer, into text: inout TextBuild) {
        // Terms are numbered in field order (title, tags, subtitle, category) as they are met.
        text.documentTerms.removeAll(keepingCapacity: true)
        var lengths = FieldCounts()
        let title = terms(ofString: docTitle[doc], analyzer: analyzer)
        text.count(title, in: .title)
        lengths.title = UInt16(clamping: title.count)
        if let hash = title.phraseHash { text.phrasePostings.append((hash, UInt32(doc))) }
        var tagTerms = 0
        for tag in tags[Int(docTagStart[doc])..<Int(docTagStart[doc + 1])] {
            let (terms, phrase) = text.count(name: tag, in: .tags, analyzer: analyzer)
            tagTerms += terms
            // A document's phrases count once each: repeats are dropped when they are put in order.
            if let phrase { text.phrasePostings.append((phrase, UInt32(doc))) }
        }
        lengths.tags = UInt16(clamping: tagTerms)
        let subtitle = terms(ofString: docSubtitle[doc], analyzer: analyzer)
        text.count(subtitle, in: .subtitle)
        lengths.subtitle = UInt16(clamping: subtitle.count)
        if docCategory[doc] != .max {
            let name = categoryNames[Int(docCategory[doc])]
            lengths.category = UInt16(clamping: text.count(name: name, in: .category, analyzer: analyzer).terms)
        }
        text.fieldLengths.append(lengths)
        for (term, counts) in text.documentTerms {
            text.postingTerms.append(term)
            text.postingDocs.append(UInt32(doc))
            text.postingCounts.append(counts)
            text.postingsOfTerm[Int(term)] += 1
            text.placeInDocument[Int(term)] = 0
        }
    }

    /// The terms of one document's string `id` (a title or subtitle).
    private func terms(ofString id: UInt32, analyzer: Analyzer) -> TermRun {
        stringBytes.withUnsafeBufferPointer { bytes in
            analyzer.termRun(
                utf8: UnsafeBufferPointer(
                    rebasing: bytes[Int(stringOffsets[Int(id)])..<Int(stringOffsets[Int(id) + 1])]))
        }
    }

    /// The local feature table of everything added, for ``Segment/init(_:localFeatures:fileName:)``.
    func finishLocalFeatures() -> LocalFeatureTable {
        // The builder's own output always has a consistent shape.
        try! LocalFeatureTable(localFeatures.finish())
    }

    /// The sections of everything added, with the text analyzed by `analyzer`.
    func finish(analyzer: Analyzer) -> ByteRegion {
        var text = TextBuild(names: names)
        var yieldPoint = YieldPoint()
        for doc in 0..<count {
            yieldPoint.pass()
            index(doc, analyzer: analyzer, into: &text)
        }
        var out = SectionWriter()
        out.add(.stringBytes, stringBytes)
        out.add(.stringOffsets, stringOffsets)
        out.add(.nameBytes, text.names.bytes)
        out.add(.nameOffsets, text.names.offsets)
        out.add(.docType, docType)
        out.add(.docID, docID)
        out.add(.docTitle, docTitle)
        out.add(.docSubtitle, docSubtitle)
        out.add(.docImage, docImage)
        out.add(.docThumbnail, docThumbnail)
        out.add(.docLink, docLink)
        out.add(.docCategory, docCategory)
        out.add(.docTitleSortKey, docTitleSortKey)
        out.add(.docTitleRank, titleRanks())
        out.add(.docTagStart, docTagStart)
        out.add(.tags, tags)
        out.add(.docAttributeStart, docAttributeStart)
        // String values in attribute order (in the order met within one), so a snapshot that
        // takes this segment's value ids reads its counts one attribute at a time (ValueRuns).
        var stringStart = [Int](repeating: 0, count: attributeNames.count + 1)
        for attribute in valueAttribute { stringStart[Int(attribute) + 1] += 1 }
        for attribute in attributeNames.indices { stringStart[attribute + 1] += stringStart[attribute] }
        var stringID = [UInt32](repeating: 0, count: valueStrings.count)
        var orderedStrings = [UInt32](repeating: 0, count: valueStrings.count)
        var orderedAttributes = [UInt32](repeating: 0, count: valueStrings.count)
        for (arrival, attribute) in valueAttribute.enumerated() {
            let id = stringStart[Int(attribute)]
            stringStart[Int(attribute)] += 1
            stringID[arrival] = UInt32(id)
            orderedStrings[id] = valueStrings[arrival]
            orderedAttributes[id] = attribute
        }
        // Numbers in (attribute, value) order follow the string values as value ids, so each
        // attribute's numbers are one ascending run: ranges compare ids, facets count per id.
        let numberOrder = arrivedNumbers.indices.sorted {
            let (a, b) = (arrivedNumbers[$0], arrivedNumbers[$1])
            return a.attribute != b.attribute ? a.attribute < b.attribute : a.value < b.value
        }
        var valueID = [UInt32](repeating: 0, count: arrivedNumbers.count)
        for (position, arrival) in numberOrder.enumerated() {
            valueID[arrival] = UInt32(valueStrings.count + position)
        }
        let pairs = PackedColumn.pack(
            pairValue.map { $0 & Self.numberMark == 0 ? stringID[Int($0)] : valueID[Int($0 & ~Self.numberMark)] })
        out.add(.pairValueShape, [UInt32(pairs.width), UInt32(pairValue.count)])
        out.add(.pairValueBits, pairs.bytes)
        out.add(.numberValues, numberOrder.map { arrivedNumbers[$0].value })
        out.add(.numberAttribute, numberOrder.map { arrivedNumbers[$0].attribute })
        out.add(.docLocalizedStart, docLocalizedStart)
        out.add(.localizedLocale, localizedLocale)
        out.add(.localizedTitle, localizedTitle)
        out.add(.localizedSubtitle, localizedSubtitle)
        out.add(.docRelatedStart, docRelatedStart)
        out.add(.relatedType, relatedType)
        out.add(.relatedID, relatedID)
        out.add(.typeNames, typeNames)
        out.add(.categoryNames, categoryNames)
        out.add(.categoryParent, categoryParent)
        out.add(.attributeNames, attributeNames)
        out.add(.attributeKinds, attributeKinds)
        out.add(.attributeMinimum, attributeMinimum)
        out.add(.attributeMaximum, attributeMaximum)
        out.add(.valueStrings, orderedStrings)
        out.add(.valueAttribute, orderedAttributes)
        addText(text, to: &out)
        let sortedRefs = refs.sorted { $0.hash != $1.hash ? $0.hash < $1.hash : $0.doc < $1.doc }
        out.add(.refHashes, sortedRefs.map(\.hash))
        out.add(.refDocs, sortedRefs.map(\.doc))
        var dimensions = [UInt32]()
        var allowances = [Double]()
        for (model, name) in vectorOrder.enumerated() {
            let index = vectors[name]!
            dimensions.append(UInt32(index.dimension))
            allowances.append(index.halfAllowance)
            out.add(.vectorDocs(model), index.docs.map { UInt32($0) })
            out.add(.vectorRows(model), index.rows)
            out.add(.vectorHalfRows(model), index.halfRows)
        }
        out.add(.vectorModels, vectorModelNames)
        out.add(.vectorDimensions, dimensions)
        out.add(.vectorAllowances, allowances)
        return out.assemble()
    }

    /// Postings with their saturated normalised frequencies (``TextIndex/saturate(_:)`` of
    /// `Σ_f w_f · tf_f / (1 − b + b · len_f / avglen_f)`: the division is made once here, not per
    /// match and term of every search), the term table and the phrases.
    private func addText(_ text: TextBuild, to out: inout SectionWriter) {
        let fieldLengths = text.fieldLengths
        var averages = [Float](repeating: 0, count: TextField.allCases.count)
        if !fieldLengths.isEmpty {
            for field in TextField.allCases {
                var total = 0.0
                for lengths in fieldLengths { total += Double(lengths[field]) }
                averages[field.rawValue] = Float(total / Double(fieldLengths.count))
            }
        }
        var start: [UInt32] = [0]
        var docStart: [UInt32] = [0]
        var gaps = [UInt8]()
        var denseTerms = [UInt32]()
        var denseWords = [UInt64]()
        var denseRanks = [UInt32]()
        var frequencies = [Float]()
        // Each term's postings together, by a counting sort of the postings by term: they were
        // made in document order, so each term's documents stay ascending.
        var termStart = [Int](repeating: 0, count: text.terms.count + 1)
        for (term, postings) in text.postingsOfTerm.enumerated() {
            termStart[term + 1] = termStart[term] + Int(postings)
        }
        var docs = [UInt32](repeating: 0, count: text.postingDocs.count)
        var fieldCounts = [FieldCounts](repeating: FieldCounts(), count: text.postingDocs.count)
        var next = termStart
        for (posting, term) in text.postingTerms.enumerated() {
            docs[next[Int(term)]] = text.postingDocs[posting]
            fieldCounts[next[Int(term)]] = text.postingCounts[posting]
            next[Int(term)] += 1
        }
        var yieldPoint = YieldPoint()
        // Most terms of a small segment have a posting or two, done in the time it takes to
        // read the clock: the yield point is passed every 256 postings or so, not every term.
        var postingsSincePass = 0
        for term in text.terms.indices {
            let postings = termStart[term]..<termStart[term + 1]
            postingsSincePass += postings.count
            if postingsSincePass >= 256 {
                yieldPoint.pass()
                postingsSincePass = 0
            }
            if DenseBits.qualifies(postings: postings.count, documents: count) {
                denseTerms.append(UInt32(term))
                DenseBits.append(docs[postings], documents: count, words: &denseWords, ranks: &denseRanks)
            } else {
                DocumentGaps.append(docs[postings], to: &gaps)
            }
            docStart.append(UInt32(gaps.count))
            for posting in postings {
                let (doc, counts) = (docs[posting], fieldCounts[posting])
                var tf: Float = 0
                for field in TextField.allCases where counts[field] > 0 {
                    let norm =
                        1 - TextIndex.b + TextIndex.b * Float(fieldLengths[Int(doc)][field])
                        / max(averages[field.rawValue], 1e-9)
                    tf += field.weight * Float(counts[field]) / norm
                }
                frequencies.append(TextIndex.saturate(tf))
            }
            start.append(UInt32(frequencies.count))
        }
        out.add(.termStrings, text.terms)
        out.add(.termTable, Self.termTable(hashes: text.terms.map { text.names.hashes[Int($0)] }))
        out.add(.postingStart, start)
        out.add(.postingDocStart, docStart)
        out.add(.postingGaps, gaps + repeatElement(0, count: DocumentGaps.padding))
        out.add(.denseTerms, denseTerms)
        out.add(.denseWords, denseWords)
        out.add(.denseRanks, denseRanks)
        let frequencyTable = FrequencyTable(frequencies)
        out.add(.postingFrequencyCodes, frequencyTable.codes)
        out.add(.frequencyValues, frequencyTable.values)
        // Each phrase's documents in order, once each (a document may have a phrase twice).
        var phraseHashes = [UInt64]()
        var phraseDocs = [UInt32]()
        var phraseEnds = [Int]()
        let inOrder = text.phrasePostings.sorted { $0.hash != $1.hash ? $0.hash < $1.hash : $0.doc < $1.doc }
        for (hash, doc) in inOrder {
            if phraseHashes.last != hash {
                if !phraseHashes.isEmpty { phraseEnds.append(phraseDocs.count) }
                phraseHashes.append(hash)
            } else if phraseDocs.last == doc {
                continue
            }
            phraseDocs.append(doc)
        }
        if !phraseHashes.isEmpty { phraseEnds.append(phraseDocs.count) }
        out.add(.phraseHashes, phraseHashes)
        var phraseStart: [UInt32] = [0]
        var phraseGaps = [UInt8]()
        var densePhrases = [UInt32]()
        var densePhraseWords = [UInt64]()
        var densePhraseRanks = [UInt32]()
        for (phrase, end) in phraseEnds.enumerated() {
            let docs = phraseDocs[(phrase == 0 ? 0 : phraseEnds[phrase - 1])..<end]
            if DenseBits.qualifies(postings: docs.count, documents: count) {
                densePhrases.append(UInt32(phrase))
                DenseBits.append(docs, documents: count, words: &densePhraseWords, ranks: &densePhraseRanks)
            } else {
                DocumentGaps.append(docs, to: &phraseGaps)
            }
            phraseStart.append(UInt32(phraseGaps.count))
        }
        out.add(.phraseStart, phraseStart)
        out.add(.phraseGaps, phraseGaps + repeatElement(0, count: DocumentGaps.padding))
        out.add(.densePhrases, densePhrases)
        out.add(.densePhraseWords, densePhraseWords)
        out.add(.densePhraseRanks, densePhraseRanks)
    }

    /// An open-addressing table of term numbers + 1 by the terms' hashes (``Segment/hash(_:)``),
    /// at most half full.
    static func termTable(hashes: [UInt64]) -> [UInt32] {
        var size = 16
        while size < hashes.count * 2 { size <<= 1 }
        var table = [UInt32](repeating: 0, count: size)
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & (size - 1)
            while table[slot] != 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = UInt32(number + 1)
        }
        return table
    }

    // MARK: Numbering

    /// Each document's place among the title sort keys, by their UTF-8 bytes (a prefix first), as
    /// a title sort orders them; equal keys share a place.
    private func titleRanks() -> [UInt32] {
        stringBytes.withUnsafeBufferPointer { bytes in
            func key(_ doc: Int) -> UnsafeBufferPointer<UInt8> {
                let id = Int(docTitleSortKey[doc])
                return UnsafeBufferPointer(rebasing: bytes[Int(stringOffsets[id])..<Int(stringOffsets[id + 1])])
            }
            let order = (0..<count).sorted { key($0).lexicographicallyPrecedes(key($1)) }
            var ranks = [UInt32](repeating: 0, count: count)
            var rank: UInt32 = 0
            for (position, doc) in order.enumerated() {
                if position > 0 && key(order[position - 1]).lexicographicallyPrecedes(key(doc)) { rank += 1 }
                ranks[doc] = rank
            }
            return ranks
        }
    }

    /// A name table whose name 0 is "".
    private static func namesFromEmpty() -> NameTable {
        var names = NameTable()
        _ = names.number(of: "")
        return names
    }

    /// Appends a string of one document.
    private mutating func string(_ value: String) -> UInt32 {
        if value.isEmpty { return 0 }
        stringBytes.append(contentsOf: value.utf8)
        return endString()
    }

    /// Ends the string whose bytes were just appended to the arena: its id.
    private mutating func endString() -> UInt32 {
        stringOffsets.append(UInt32(stringBytes.count))
        return UInt32(stringOffsets.count - 2)
    }

    /// Appends a title's sort key: its tokens (``Analyzer/tokens(_:)``), a space between each two.
    private mutating func sortKey(ofTitle title: String) -> UInt32 {
        var title = title
        let tokens = title.withUTF8 { Analyzer.tokenRun(utf8: $0) }
        if tokens.isEmpty { return 0 }
        var first = true
        tokens.forEach { token in
            if !first { stringBytes.append(UInt8(ascii: " ")) }
            first = false
            stringBytes.append(contentsOf: token)
        }
        return endString()
    }

    /// A name that repeats across documents, stored once.
    private mutating func name(_ value: String) -> UInt32 {
        names.number(of: value)
    }

    private mutating func number(ofType type: String) -> UInt32 {
        let key = keys.key(of: type)
        if let known = typeOfKey[key] { return known }
        let number = UInt32(typeNames.count)
        typeOfKey[key] = number
        typeNames.append(name(type))
        return number
    }

    /// The category's number, numbering its ancestors first (so a parent's number is lower).
    private mutating func number(ofCategory path: String) -> UInt32 {
        var path = path
        return path.withUTF8 { number(ofCategory: $0) }
    }

    private mutating func number(ofCategory path: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let slash = UInt8(ascii: "/")
        // Most documents share their category with others: one lookup, no splitting.
        if let known = categoryOfKey[keys.key(of: path)] { return known }
        // A path with an empty part ("a//b", "/a") is the one of its parts that are not.
        let hasEmptyPart =
            path.first == slash || path.last == slash
            || zip(path, path.dropFirst()).contains { $0 == slash && $1 == slash }
        if hasEmptyPart {
            var parts = String(decoding: path, as: UTF8.self).split(separator: "/").joined(separator: "/")
            return parts.isEmpty ? .max : parts.withUTF8 { number(ofCategory: $0) }
        }
        var parent = UInt32.max
        var category = UInt32.max
        var end = 0
        while end < path.count {
            end = path[end...].firstIndex(of: slash) ?? path.count
            // An ancestor's path is the path up to one of its slashes.
            let ancestor = UnsafeBufferPointer(rebasing: path[..<end])
            let key = keys.key(of: ancestor)
            if let known = categoryOfKey[key] {
                category = known
            } else {
                category = UInt32(categoryNames.count)
                categoryOfKey[key] = category
                categoryNames.append(names.number(of: ancestor))
                categoryParent.append(parent)
            }
            parent = category
            end += 1
        }
        return category
    }

    /// The arrival number of a distinct number of an attribute.
    private mutating func arrival(of value: Double, attribute: UInt32) -> UInt32 {
        let key = NumberKey(attribute: attribute, value: value)
        if let known = numberArrivals[key] { return known }
        let arrival = UInt32(arrivedNumbers.count)
        numberArrivals[key] = arrival
        arrivedNumbers.append((attribute, value))
        return arrival
    }

    private mutating func number(ofAttribute attribute: String) -> UInt32 {
        let key = keys.key(of: attribute)
        if let known = attributeOfKey[key] { return known }
        let number = UInt32(attributeNames.count)
        attributeOfKey[key] = number
        attributeNames.append(name(attribute))
        attributeKinds.append(0)
        attributeMinimum.append(0)
        attributeMaximum.append(0)
        return number
    }

    private mutating func number(ofValue value: String, attribute: UInt32) -> UInt32 {
        let key = UInt64(attribute) << 32 | UInt64(keys.key(of: value))
        if let known = valueNumbers[key] { return known }
        let number = UInt32(valueStrings.count)
        valueNumbers[key] = number
        valueStrings.append(name(value))
        valueAttribute.append(attribute)
        return number
    }
}

/// Keys for text as Strings compare it, found by its bytes: two spellings Unicode calls
/// equivalent ("é" and "e" + U+0301) have one key, as they were one String key of a dictionary.
///
/// Text with no scalar from U+0300 on (ASCII, Latin-1 and the Latin extensions: no lead byte from
/// 0xCC) is in NFC already and is its own key, found by its bytes; other text is keyed by its NFC
/// form, made once per spelling and then found as a String. Keys are numbered by a name table of
/// their own, not the segment's: they are never written.
struct CanonicalKeys {
    private var table = NameTable()
    /// The keys of spellings with a scalar from U+0300 on, by the spelling.
    private var spellings: [String: UInt32] = [:]

    /// The key of `text`: its number, given now when it is new.
    mutating func key(of text: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard text.contains(where: { $0 >= 0xCC }) else { return table.number(of: text) }
        let spelling = String(decoding: text, as: UTF8.self)
        if let known = spellings[spelling] { return known }
        let key = table.number(of: spelling.precomposedStringWithCanonicalMapping)
        spellings[spelling] = key
        return key
    }

    mutating func key(of text: String) -> UInt32 {
        var text = text
        return text.withUTF8 { key(of: $0) }
    }
}

/// Per number of one table (a ``CanonicalKeys`` key, a ``NameTable`` name), a number in another
/// (a type's, a category's, a term's): an array as long as the first table, not a dictionary.
struct KeyNumbers {
    /// Per key number: its number + 1, or 0 when it has none.
    private var numbers: [UInt32] = []

    subscript(key: UInt32) -> UInt32? {
        get { Int(key) < numbers.count && numbers[Int(key)] != 0 ? numbers[Int(key)] - 1 : nil }
        set {
            let index = Int(key)
            if index >= numbers.count {
                numbers.append(contentsOf: repeatElement(0, count: max(index + 1, 2 * numbers.count) - numbers.count))
            }
            numbers[index] = newValue.map { $0 + 1 } ?? 0
        }
    }
}

// MARK: Merging

extension SegmentBuilder {
    /// What a merge has numbered of one source segment so far: per number of the source (a name,
    /// type, category, attribute, value), its number in the builder + 1, or 0 while not met.
    ///
    /// A merge used to read each source document back as an ``Entity`` (a String for every
    /// title, URL, tag and value) and add it: 40 % of a merge's time under a write stream at 1M.
    /// With these numbers a document is added as integers and one copy of its strings' bytes.
    /// They are filled in as ``add(_:of:numbers:)`` meets them, in the order ``add(_:)`` meets
    /// the same entity's, so the builder numbers everything as it would have: both build the
    /// same bytes.
    struct SourceNumbers {
        fileprivate var names: [UInt32]
        fileprivate var types: [UInt32]
        fileprivate var categories: [UInt32]
        fileprivate var attributes: [UInt32]
        /// String values, then numbers, by the source's value ids.
        fileprivate var values: [UInt32]
        /// Each source document's reference hash (``Segment/hash(type:id:)``).
        fileprivate var refHashes: [UInt64]
        /// The source's vector models in name order, as ``Segment/entity(_:)`` lists prints.
        fileprivate let models: [(name: String, rows: VectorRows)]

        init(_ segment: Segment) {
            names = Array(repeating: 0, count: segment.nameOffsets.count - 1)
            types = Array(repeating: 0, count: segment.typeNames.count)
            categories = Array(repeating: 0, count: segment.categoryNames.count)
            attributes = Array(repeating: 0, count: segment.attributeNames.count)
            values = Array(repeating: 0, count: segment.valueStrings.count + segment.numberValues.count)
            var hashes = [UInt64](repeating: 0, count: segment.count)
            for (hash, doc) in zip(segment.refHashes, segment.refDocs) { hashes[Int(doc)] = hash }
            refHashes = hashes
            models = segment.vectors.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// Number `source` of `table`, made by `make` the first time.
        fileprivate mutating func number(
            _ table: WritableKeyPath<SourceNumbers, [UInt32]>, _ source: UInt32, make: () -> UInt32
        ) -> UInt32 {
            let known = self[keyPath: table][Int(source)]
            if known != 0 { return known - 1 }
            let number = make()
            self[keyPath: table][Int(source)] = number + 1
            return number
        }
    }

    /// Adds document `doc` of `segment` as the next document, as ``add(_:)`` adds
    /// `segment.entity(doc)` with its local features: the same bytes, without the entity.
    mutating func add(_ doc: Int, of segment: Segment, numbers: inout SourceNumbers) {
        yieldPoint.pass()
        let newDoc = UInt32(docType.count)
        localFeatures.add(segment.localFeatures.localFeatures(of: doc))
        docType.append(
            numbers.number(\.types, segment.docType[doc]) {
                number(ofType: segment.name(segment.typeNames[Int(segment.docType[doc])]))
            })
        // A document's strings are stored one after another (``add(_:)`` appends them in turn):
        // they are copied as one run, their ids moved by where the run lands. Were they ever
        // spread out, each would be copied alone, so a run never takes in other documents'.
        let localizedRange = Int(segment.docLocalizedStart[doc])..<Int(segment.docLocalizedStart[doc + 1])
        let relatedRange = Int(segment.docRelatedStart[doc])..<Int(segment.docRelatedStart[doc + 1])
        var ids = [
            segment.docID[doc], segment.docTitle[doc], segment.docSubtitle[doc], segment.docImage[doc],
            segment.docThumbnail[doc], segment.docLink[doc], segment.docTitleSortKey[doc],
        ]
        for entry in localizedRange { ids += [segment.localizedTitle[entry], segment.localizedSubtitle[entry]] }
        for entry in relatedRange { ids.append(segment.relatedID[entry]) }
        ids.removeAll { $0 == 0 }
        let firstID = UInt32(stringOffsets.count - 1)
        let low = ids.min() ?? 0
        let isRun = ids.isEmpty || Int(ids.max()! - low) == ids.count - 1
        var movedAlone = [UInt32: UInt32]()
        if isRun {
            if !ids.isEmpty {
                segment.appendStrings(low...(low + UInt32(ids.count - 1)), toBytes: &stringBytes, ends: &stringOffsets)
            }
        } else {
            for id in ids {
                movedAlone[id] = UInt32(stringOffsets.count - 1)
                segment.appendStrings(id...id, toBytes: &stringBytes, ends: &stringOffsets)
            }
        }
        func moved(_ id: UInt32) -> UInt32 { id == 0 ? 0 : isRun ? id - low + firstID : movedAlone[id]! }
        docID.append(moved(segment.docID[doc]))
        docTitle.append(moved(segment.docTitle[doc]))
        docSubtitle.append(moved(segment.docSubtitle[doc]))
        docImage.append(moved(segment.docImage[doc]))
        docThumbnail.append(moved(segment.docThumbnail[doc]))
        docLink.append(moved(segment.docLink[doc]))
        docTitleSortKey.append(moved(segment.docTitleSortKey[doc]))
        let category = segment.docCategory[doc]
        docCategory.append(
            category == .max
                ? .max
                : numbers.number(\.categories, category) {
                    number(ofCategory: segment.name(segment.categoryNames[Int(category)]))
                })
        for position in Int(segment.docTagStart[doc])..<Int(segment.docTagStart[doc + 1]) {
            tags.append(name(segment.tags[position], of: segment, numbers: &numbers))
        }
        docTagStart.append(UInt32(tags.count))
        for pair in segment.attributes(of: doc) {
            let value = segment.pairValue[pair]
            let sourceAttribute = segment.attribute(ofValue: value)
            let attribute = numbers.number(\.attributes, sourceAttribute) {
                number(ofAttribute: segment.name(segment.attributeNames[Int(sourceAttribute)]))
            }
            if segment.isNumber(value) {
                let number = segment.number(value)
                noteNumber(number, of: attribute)
                pairValue.append(
                    Self.numberMark | numbers.number(\.values, value) { arrival(of: number, attribute: attribute) })
            } else {
                attributeKinds[Int(attribute)] |= 2
                pairValue.append(
                    numbers.number(\.values, value) {
                        self.number(ofValue: segment.name(segment.valueStrings[Int(value)]), attribute: attribute)
                    })
            }
        }
        docAttributeStart.append(UInt32(pairValue.count))
        for entry in localizedRange {
            localizedLocale.append(name(segment.localizedLocale[entry], of: segment, numbers: &numbers))
            localizedTitle.append(moved(segment.localizedTitle[entry]))
            localizedSubtitle.append(moved(segment.localizedSubtitle[entry]))
        }
        docLocalizedStart.append(UInt32(localizedLocale.count))
        for entry in relatedRange {
            relatedType.append(name(segment.relatedType[entry], of: segment, numbers: &numbers))
            relatedID.append(moved(segment.relatedID[entry]))
        }
        docRelatedStart.append(UInt32(relatedType.count))
        refs.append((numbers.refHashes[doc], newDoc))
        for (model, rows) in numbers.models {
            guard let row = rows.row(of: UInt32(doc)) else { continue }
            if vectors[model] == nil {
                vectors[model] = VectorIndex(model: model, dimension: rows.dimension)
                vectorOrder.append(model)
                vectorModelNames.append(name(model))
            }
            if vectors[model]!.dimension == rows.dimension {
                let start = row * rows.dimension
                vectors[model]!.add(doc: Int32(newDoc), values: Array(rows.rows[start..<(start + rows.dimension)]))
            }
        }
    }

    /// Adds document `doc` of `segment` read back as an entity, with its local features: how
    /// merges added documents before ``add(_:of:numbers:)``, kept as the reference that must
    /// build the same bytes (and for timing the two side by side).
    mutating func addReadBack(_ doc: Int, of segment: Segment) {
        var entity = segment.entity(doc)
        entity.localFeatures = segment.localFeatures.localFeatures(of: doc)
        add(entity)
    }

    /// The builder's number of name `source` of `segment` (a tag, locale or related type).
    private mutating func name(_ source: UInt32, of segment: Segment, numbers: inout SourceNumbers) -> UInt32 {
        numbers.number(\.names, source) { names.number(of: segment.nameBytes(source)) }
    }
}
