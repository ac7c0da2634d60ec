internal import Synchronization

/// One immutable part of the catalog index: its documents' display fields, text postings,
/// facet columns, prints and references, as flat arrays read in place (see ``SegmentFormat``).
///
/// A snapshot of the catalog is a list of segments with delete bits (``DeleteSet``): an upsert
/// adds a small segment and marks the replaced documents deleted in the older ones, so no write
/// rebuilds the index. Document numbers here are local to the segment. The buffers point into
/// `region`, which the segment owns and never changes: that is what makes it `Sendable`.
final class Segment: @unchecked Sendable {
    /// The bytes, a heap allocation or a mapped file.
    let region: ByteRegion
    /// The number of documents, deleted ones included.
    let count: Int
    /// The file in an ``IndexDirectory`` the segment is mapped from; `nil` for one on the heap.
    let fileName: String?
    /// The keypoints of its documents' pictures, from a file of their own beside the segment's.
    let localFeatures: LocalFeatureTable
    /// Tells segments apart for as long as the process runs (a checkpoint remembers which it wrote).
    let serial: UInt64
    private static let serials = Atomic<UInt64>(0)

    /// Per-document strings (titles, URLs, ids): read for the few results shown.
    let stringBytes: UnsafeBufferPointer<UInt8>
    let stringOffsets: UnsafeBufferPointer<UInt32>
    /// Names shared by many documents (types, categories, tags, attribute names and values,
    /// terms, locales): kept apart, so reading the dictionaries touches few pages.
    let nameBytes: UnsafeBufferPointer<UInt8>
    let nameOffsets: UnsafeBufferPointer<UInt32>
    let docType: UnsafeBufferPointer<UInt32>
    let docID: UnsafeBufferPointer<UInt32>
    let docTitle: UnsafeBufferPointer<UInt32>
    let docSubtitle: UnsafeBufferPointer<UInt32>
    let docImage: UnsafeBufferPointer<UInt32>
    let docThumbnail: UnsafeBufferPointer<UInt32>
    let docLink: UnsafeBufferPointer<UInt32>
    let docCategory: UnsafeBufferPointer<UInt32>
    let docTitleSortKey: UnsafeBufferPointer<UInt32>
    let docTitleRank: UnsafeBufferPointer<UInt32>
    let docTagStart: UnsafeBufferPointer<UInt32>
    let tags: UnsafeBufferPointer<UInt32>
    let docAttributeStart: UnsafeBufferPointer<UInt32>
    /// Per attribute pair: its value id (``valueCount``).
    let pairValue: PackedColumn
    let docLocalizedStart: UnsafeBufferPointer<UInt32>
    let localizedLocale: UnsafeBufferPointer<UInt32>
    let localizedTitle: UnsafeBufferPointer<UInt32>
    let localizedSubtitle: UnsafeBufferPointer<UInt32>
    let docRelatedStart: UnsafeBufferPointer<UInt32>
    let relatedType: UnsafeBufferPointer<UInt32>
    let relatedID: UnsafeBufferPointer<UInt32>
    let typeNames: UnsafeBufferPointer<UInt32>
    let categoryNames: UnsafeBufferPointer<UInt32>
    let categoryParent: UnsafeBufferPointer<UInt32>
    let attributeNames: UnsafeBufferPointer<UInt32>
    let attributeKinds: UnsafeBufferPointer<UInt8>
    let attributeMinimum: UnsafeBufferPointer<Double>
    let attributeMaximum: UnsafeBufferPointer<Double>
    let valueStrings: UnsafeBufferPointer<UInt32>
    let valueAttribute: UnsafeBufferPointer<UInt32>
    /// The numbers among the value ids (those from `valueStrings.count` on), ascending within
    /// each attribute, and their attributes.
    let numberValues: UnsafeBufferPointer<Double>
    let numberAttribute: UnsafeBufferPointer<UInt32>
    let termStrings: UnsafeBufferPointer<UInt32>
    let termTable: UnsafeBufferPointer<UInt32>
    let postingStart: UnsafeBufferPointer<UInt32>
    let postingDocStart: UnsafeBufferPointer<UInt32>
    let postingGaps: UnsafeBufferPointer<UInt8>
    let denseTerms: UnsafeBufferPointer<UInt32>
    let denseWords: UnsafeBufferPointer<UInt64>
    let denseRanks: UnsafeBufferPointer<UInt32>
    let postingFrequencyCodes: UnsafeBufferPointer<UInt8>
    let frequencyValues: UnsafeBufferPointer<Float>
    let phraseHashes: UnsafeBufferPointer<UInt64>
    let phraseStart: UnsafeBufferPointer<UInt32>
    let phraseGaps: UnsafeBufferPointer<UInt8>
    let densePhrases: UnsafeBufferPointer<UInt32>
    let densePhraseWords: UnsafeBufferPointer<UInt64>
    let densePhraseRanks: UnsafeBufferPointer<UInt32>
    let refHashes: UnsafeBufferPointer<UInt64>
    let refDocs: UnsafeBufferPointer<UInt32>
    /// Each model's prints.
    let vectors: [String: VectorRows]

    /// Per-segment counts over all its documents, computed on first use (see ``FacetTotals``).
    private let totalsCache = Mutex<FacetTotals?>(nil)
    /// Whether display strings are copied out with `pread` rather than read through the mapping:
    /// only for a mapped segment with more than ``residentStringBytes`` of them. A smaller section
    /// could at worst all become resident, which costs less than a system call for the strings of
    /// every result of every query (8 per sheet query: a third of a small catalog's Query).
    let readsStringsWithCopies: Bool
    /// Whether posting lists (and exact phrases' lists) are copied out with `pread` rather than
    /// read through the mapping (see ``PostingReads``): only for a mapped segment with more than
    /// ``residentPostingBytes`` of postings, for the same reason as strings.
    let readsPostingsWithCopies: Bool

    /// Its pairs numbered for counting, made on first use (see ``FacetSlots``).
    let slotsCache = Mutex<FacetSlots?>(nil)

    /// The attributes filters have named, as columns (see ``AttributeColumn``).
    private let columnsCache = Mutex<[UInt32: AttributeColumn]>([:])
    /// Each document's attributes as bits, made on first use (see ``AttributeMasks``).
    private let masksCache = Mutex<AttributeMasks?>(nil)

    /// Reads a segment from its bytes.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the bytes are not a whole segment of this
    ///   format (their sections' sizes disagree with each other).
    ///
    /// - Parameter localFeatures: The documents' keypoints; `nil` for none (a segment of entities
    ///   without pictures).
    ///
    /// - Parameter residentStringBytes: The most string bytes read through a mapping (tests set
    ///   0 to read every string with `pread`).
    ///
    /// - Parameter residentPostingBytes: The most posting bytes read through a mapping (tests set
    ///   0 to read every list with `pread`).
    init(
        _ region: ByteRegion, localFeatures: LocalFeatureTable? = nil, fileName: String? = nil,
        residentStringBytes: Int = Segment.residentStringBytes,
        residentPostingBytes: Int = Segment.residentPostingBytes
    ) throws(SearchError) {
        let table = try SectionTable(region)
        self.region = region
        self.fileName = fileName
        serial = Self.serials.add(1, ordering: .relaxed).newValue
        stringBytes = table.array(.stringBytes)
        readsStringsWithCopies = region.isMapped && stringBytes.count > residentStringBytes
        stringOffsets = table.array(.stringOffsets)
        nameBytes = table.array(.nameBytes)
        nameOffsets = table.array(.nameOffsets)
        docType = table.array(.docType)
        docID = table.array(.docID)
        docTitle = table.array(.docTitle)
        docSubtitle = table.array(.docSubtitle)
        docImage = table.array(.docImage)
        docThumbnail = table.array(.docThumbnail)
        docLink = table.array(.docLink)
        docCategory = table.array(.docCategory)
        docTitleSortKey = table.array(.docTitleSortKey)
        docTitleRank = table.array(.docTitleRank)
        docTagStart = table.array(.docTagStart)
        tags = table.array(.tags)
        docAttributeStart = table.array(.docAttributeStart)
        // Read with `pread`, as the shape check reads its values: opening maps no page.
        let pairShape: UnsafeBufferPointer<UInt32> = table.array(.pairValueShape)
        guard pairShape.count == 2, let shape = pairShape.baseAddress,
            let pairValue = PackedColumn(
                bytes: table.array(.pairValueBits), width: Int(region.load(shape)),
                count: Int(region.load(shape + 1)))
        else { throw SearchError(code: .storage, message: "index segment's attribute pairs are malformed") }
        self.pairValue = pairValue
        docLocalizedStart = table.array(.docLocalizedStart)
        localizedLocale = table.array(.localizedLocale)
        localizedTitle = table.array(.localizedTitle)
        localizedSubtitle = table.array(.localizedSubtitle)
        docRelatedStart = table.array(.docRelatedStart)
        relatedType = table.array(.relatedType)
        relatedID = table.array(.relatedID)
        typeNames = table.array(.typeNames)
        categoryNames = table.array(.categoryNames)
        categoryParent = table.array(.categoryParent)
        attributeNames = table.array(.attributeNames)
        attributeKinds = table.array(.attributeKinds)
        attributeMinimum = table.array(.attributeMinimum)
        attributeMaximum = table.array(.attributeMaximum)
        valueStrings = table.array(.valueStrings)
        valueAttribute = table.array(.valueAttribute)
        numberValues = table.array(.numberValues)
        numberAttribute = table.array(.numberAttribute)
        termStrings = table.array(.termStrings)
        termTable = table.array(.termTable)
        postingStart = table.array(.postingStart)
        postingDocStart = table.array(.postingDocStart)
        postingGaps = table.array(.postingGaps)
        denseTerms = table.array(.denseTerms)
        denseWords = table.array(.denseWords)
        denseRanks = table.array(.denseRanks)
        postingFrequencyCodes = table.array(.postingFrequencyCodes)
        let postingBytes =
            postingGaps.count + postingFrequencyCodes.count + denseWords.count * MemoryLayout<UInt64>.size
            + denseRanks.count * MemoryLayout<UInt32>.size
        readsPostingsWithCopies = region.isMapped && postingBytes > residentPostingBytes
        frequencyValues = table.array(.frequencyValues)
        phraseHashes = table.array(.phraseHashes)
        phraseStart = table.array(.phraseStart)
        phraseGaps = table.array(.phraseGaps)
        densePhrases = table.array(.densePhrases)
        densePhraseWords = table.array(.densePhraseWords)
        densePhraseRanks = table.array(.densePhraseRanks)
        refHashes = table.array(.refHashes)
        refDocs = table.array(.refDocs)
        count = docType.count
        let models: UnsafeBufferPointer<UInt32> = table.array(.vectorModels)
        let dimensions: UnsafeBufferPointer<UInt32> = table.array(.vectorDimensions)
        let allowances: UnsafeBufferPointer<Double> = table.array(.vectorAllowances)
        var vectors = [String: VectorRows]()
        let names = (nameBytes, nameOffsets)
        for model in 0..<models.count where model < dimensions.count && model < allowances.count {
            let name = Self.string(models[model], in: names)
            vectors[name] = VectorRows(
                dimension: Int(dimensions[model]), rows: table.array(.vectorRows(model)),
                halfRows: table.array(.vectorHalfRows(model)), halfAllowance: allowances[model],
                docs: table.array(.vectorDocs(model)))
        }
        self.vectors = vectors
        self.localFeatures = localFeatures ?? .empty(count: docType.count)
        guard self.localFeatures.count == count else {
            throw SearchError(
                code: .storage,
                message: "the local feature file has \(self.localFeatures.count) documents; its segment \(count)")
        }
        try checkShape()
    }

    /// Builds a segment from entities in document order.
    convenience init(entities: some Sequence<Entity>, analyzer: Analyzer) {
        var builder = SegmentBuilder()
        for entity in entities { builder.add(entity) }
        // The builder's own output always has a consistent shape.
        try! self.init(builder.finish(analyzer: analyzer), localFeatures: builder.finishLocalFeatures())
    }

    /// Checks that per-document and start arrays agree, so no accessor reads out of bounds.
    private func checkShape() throws(SearchError) {
        let perDocument = [
            docID.count, docTitle.count, docSubtitle.count, docImage.count, docThumbnail.count, docLink.count,
            docCategory.count, docTitleSortKey.count, docTitleRank.count,
        ]
        let starts = [
            (docTagStart, tags.count), (docAttributeStart, pairValue.count),
            (docLocalizedStart, localizedLocale.count), (docRelatedStart, relatedType.count),
            (postingStart, postingFrequencyCodes.count),
            (postingDocStart, postingGaps.count - DocumentGaps.padding),
            (phraseStart, phraseGaps.count - DocumentGaps.padding),
        ]
        // Each last element is read with `pread`: through the mapping it would keep the 2 MiB
        // folio around it resident whether or not a search ever reads there.
        let last = { (array: UnsafeBufferPointer<UInt32>) -> Int? in
            guard let base = array.baseAddress, !array.isEmpty else { return nil }
            return Int(self.region.load(base + (array.count - 1)))
        }
        guard perDocument.allSatisfy({ $0 == count }), stringOffsets.count >= 2,
            last(stringOffsets) == stringBytes.count, nameOffsets.count >= 2,
            last(nameOffsets) == nameBytes.count,
            [docTagStart, docAttributeStart, docLocalizedStart, docRelatedStart].allSatisfy({ $0.count == count + 1 }),
            starts.allSatisfy({ start, items in start.isEmpty ? items == 0 : last(start) == items }),
            valueAttribute.count == valueStrings.count, numberAttribute.count == numberValues.count,
            postingDocStart.count == postingStart.count, frequencyValues.count.nonzeroBitCount == 1,
            denseWords.count == denseTerms.count * DenseBits.wordCount(documents: count),
            denseRanks.count == denseWords.count,
            densePhraseWords.count == densePhrases.count * DenseBits.wordCount(documents: count),
            densePhraseRanks.count == densePhraseWords.count,
            refDocs.count == refHashes.count, refDocs.count == count,
            localizedTitle.count == localizedLocale.count, localizedSubtitle.count == localizedLocale.count,
            relatedID.count == relatedType.count
        else { throw SearchError(code: .storage, message: "index segment sections disagree in size") }
    }

    // MARK: Strings

    static func string(
        _ id: UInt32, in strings: (bytes: UnsafeBufferPointer<UInt8>, offsets: UnsafeBufferPointer<UInt32>)
    ) -> String {
        let start = Int(strings.offsets[Int(id)])
        let end = Int(strings.offsets[Int(id) + 1])
        return String(decoding: UnsafeBufferPointer(rebasing: strings.bytes[start..<end]), as: UTF8.self)
    }

    /// String `id` of the segment.
    func string(_ id: UInt32) -> String { withBytes(of: id) { String(decoding: $0, as: UTF8.self) } }

    /// Lends string `id`'s bytes to `body`.
    func withBytes<R>(of id: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withStringBytes(Int(stringOffsets[Int(id)])..<Int(stringOffsets[Int(id) + 1]), body)
    }

    /// Whether string `id` is `text`, without making a String.
    func string(_ id: UInt32, equals text: String) -> Bool { withBytes(of: id) { Self.equal($0, text) } }

    /// Strings `ids`, read together when they lie close: a document's strings are stored one
    /// after another, so its title, subtitle, URLs and id are one read (one `pread` from a
    /// mapped segment) instead of one each.
    func strings(_ ids: [UInt32]) -> [String] {
        let present = ids.filter { $0 != 0 }
        guard let low = present.min(), let high = present.max() else { return ids.map { _ in "" } }
        let start = Int(stringOffsets[Int(low)])
        let end = Int(stringOffsets[Int(high) + 1])
        guard end - start <= Self.closeStrings else { return ids.map(string) }
        return withStringBytes(start..<end) { span in
            ids.map { id in
                let from = Int(stringOffsets[Int(id)]) - start
                let to = Int(stringOffsets[Int(id) + 1]) - start
                return id == 0 ? "" : String(decoding: UnsafeBufferPointer(rebasing: span[from..<to]), as: UTF8.self)
            }
        }
    }

    /// Appends strings `ids` (consecutive, as one document's are) to `bytes` in one read, and
    /// where each ends, counted from the start of `bytes`, to `ends`.
    func appendStrings(_ ids: ClosedRange<UInt32>, toBytes bytes: inout [UInt8], ends: inout [UInt32]) {
        let start = Int(stringOffsets[Int(ids.lowerBound)])
        let end = Int(stringOffsets[Int(ids.upperBound) + 1])
        let landing = bytes.count
        withStringBytes(start..<end) { bytes.append(contentsOf: $0) }
        for id in ids { ends.append(UInt32(landing + Int(stringOffsets[Int(id) + 1]) - start)) }
    }

    /// Lends the string bytes at `range` to `body`: in place in a segment in memory or a small
    /// mapped one, copied out of a large mapped file (see ``ByteRegion/copy(from:count:to:)``:
    /// a large mapped segment's strings never become resident memory).
    private func withStringBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let inPlace = UnsafeBufferPointer(rebasing: stringBytes[range])
        guard readsStringsWithCopies, !inPlace.isEmpty else { return body(inPlace) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: inPlace.count) { copy in
            region.copy(from: inPlace.baseAddress!, count: inPlace.count, to: copy.baseAddress!)
            return body(UnsafeBufferPointer(copy))
        }
    }

    /// The most string bytes a mapped segment reads through its mapping (see
    /// ``readsStringsWithCopies``).
    static let residentStringBytes = 4 << 20

    /// The most posting bytes a mapped segment reads through its mapping (see
    /// ``readsPostingsWithCopies``).
    static let residentPostingBytes = 4 << 20

    /// The most bytes ``strings(_:)`` reads in one go.
    static let closeStrings = 16 << 10

    /// Name `id` of the segment (a type, category, tag, attribute name or value, term, locale).
    func name(_ id: UInt32) -> String { Self.string(id, in: (nameBytes, nameOffsets)) }

    /// Name `id`'s bytes, in place.
    func nameBytes(_ id: UInt32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: nameBytes[Int(nameOffsets[Int(id)])..<Int(nameOffsets[Int(id) + 1])])
    }

    /// Whether name `id` is `text`, without making a String.
    func name(_ id: UInt32, equals text: String) -> Bool { Self.equal(nameBytes(id), text) }

    private static func equal(_ stored: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 {
            $0.count == stored.count && ($0.isEmpty || memcmp($0.baseAddress!, stored.baseAddress!, $0.count) == 0)
        }
    }

    // MARK: Documents

    func type(of doc: Int) -> String { name(typeNames[Int(docType[doc])]) }
    func id(of doc: Int) -> String { string(docID[doc]) }
    func ref(of doc: Int) -> EntityRef { EntityRef(type: type(of: doc), id: id(of: doc)) }

    /// The document's category path, or "".
    func category(of doc: Int) -> String {
        let number = docCategory[doc]
        return number == .max ? "" : name(categoryNames[Int(number)])
    }

    /// The document's attribute pairs, as positions in the attribute arrays.
    func attributes(of doc: Int) -> Range<Int> { Int(docAttributeStart[doc])..<Int(docAttributeStart[doc + 1]) }

    /// The value of pair `p` as the catalog gave it.
    func attributeValue(at p: Int) -> AttributeValue {
        let value = pairValue[p]
        return isNumber(value) ? .number(number(value)) : .string(name(valueStrings[Int(value)]))
    }

    // MARK: Values
    //
    // A value id below `valueStrings.count` is a string value of one attribute; the rest are the
    // attributes' distinct numbers, one ascending run per attribute. So a pair's one id names
    // its attribute and its value, and facets count numbers per id, not per document.

    /// How many value ids the segment has: string values, then numbers.
    var valueCount: Int { valueStrings.count + numberValues.count }

    /// Whether value id `value` is a number.
    @inline(__always) func isNumber(_ value: UInt32) -> Bool { Int(value) >= valueStrings.count }

    /// The number of a number value id.
    @inline(__always) func number(_ value: UInt32) -> Double { numberValues[Int(value) - valueStrings.count] }

    /// The attribute number of value id `value`.
    @inline(__always) func attribute(ofValue value: UInt32) -> UInt32 {
        isNumber(value) ? numberAttribute[Int(value) - valueStrings.count] : valueAttribute[Int(value)]
    }

    /// Attribute `attribute` as a column of value ids, made on first use and kept.
    func column(ofAttribute attribute: UInt32) -> AttributeColumn {
        if let kept = columnsCache.withLock({ $0[attribute] }) { return kept }
        // Made outside the lock (a pass over every pair): searches that need another column, or
        // none, do not wait for it. Two that need this one may both make it; the first is kept.
        let made = AttributeColumn(attribute: attribute, of: self)
        return columnsCache.withLock { cache in
            if let kept = cache[attribute] { return kept }
            cache[attribute] = made
            return made
        }
    }

    /// Each document's attributes as bits, made on first use and kept.
    var attributeMasks: AttributeMasks {
        if let kept = masksCache.withLock({ $0 }) { return kept }
        let made = AttributeMasks(of: self)
        return masksCache.withLock { cache in
            if let kept = cache { return kept }
            cache = made
            return made
        }
    }

    /// The value ids of the numbers of attribute `attribute`, ascending by number.
    func numberIDs(of attribute: UInt32) -> Range<UInt32> {
        let all = 0..<numberAttribute.count
        let start = firstPosition(in: all) { numberAttribute[$0] >= attribute }
        let end = firstPosition(in: all) { numberAttribute[$0] > attribute }
        return UInt32(valueStrings.count + start)..<UInt32(valueStrings.count + end)
    }

    /// The value id of number `n` of attribute `attribute`, if a document has it.
    func numberID(_ n: Double, of attribute: UInt32) -> UInt32? {
        let ids = numberIDs(of: attribute)
        let first = firstNumberID(atLeast: n, in: ids)
        return first < ids.upperBound && number(first) == n ? first : nil
    }

    /// The first id in `ids` (one attribute's numbers) whose number is at least `n`, or the end.
    func firstNumberID(atLeast n: Double, in ids: Range<UInt32>) -> UInt32 {
        UInt32(firstPosition(in: Int(ids.lowerBound)..<Int(ids.upperBound)) { number(UInt32($0)) >= n })
    }

    /// The first id in `ids` (one attribute's numbers) whose number is above `n`, or the end.
    func firstNumberID(above n: Double, in ids: Range<UInt32>) -> UInt32 {
        UInt32(firstPosition(in: Int(ids.lowerBound)..<Int(ids.upperBound)) { number(UInt32($0)) > n })
    }

    /// The first position in `range` where `isPast` holds, or its end; `isPast` must be false
    /// then true along the range (a binary search).
    private func firstPosition(in range: Range<Int>, where isPast: (Int) -> Bool) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = low + (high - low) / 2
            if isPast(mid) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The document's pair of the attribute with this segment's number `attribute`, if any.
    func attribute(_ attribute: UInt32, of doc: Int) -> Int? {
        for pair in attributes(of: doc) where self.attribute(ofValue: pairValue[pair]) == attribute { return pair }
        return nil
    }

    /// The number of an attribute name in this segment.
    func attributeNumber(named name: String) -> UInt32? {
        attributeNames.firstIndex { self.name($0, equals: name) }.map(UInt32.init)
    }

    /// Whether `locale` may show the document in a text of its own (a locale asked, and localized
    /// texts to choose from): otherwise its title and subtitle are the default ones.
    func showsLocalized(_ doc: Int, in locale: String) -> Bool {
        !locale.isEmpty && docLocalizedStart[doc] != docLocalizedStart[doc + 1]
    }

    /// The title and subtitle to show in `locale`: an exact match (`de-AT`), then its language
    /// (`de`), then the default (see `Entity.display(locale:)`, which this mirrors without
    /// materializing the entity).
    func display(_ doc: Int, locale: String) -> LocalizedText {
        let title = string(docTitle[doc])
        let subtitle = string(docSubtitle[doc])
        if !showsLocalized(doc, in: locale) { return LocalizedText(title: title, subtitle: subtitle) }
        let localized = Int(docLocalizedStart[doc])..<Int(docLocalizedStart[doc + 1])
        var texts = [String: LocalizedText]()
        for entry in localized {
            texts[name(localizedLocale[entry])] = LocalizedText(
                title: string(localizedTitle[entry]), subtitle: string(localizedSubtitle[entry]))
        }
        let entity = Entity(type: "", id: "", title: title, subtitle: subtitle, localized: texts)
        return entity.display(locale: locale)
    }

    /// The whole entity, as it was added (prints as unit vectors).
    func entity(_ doc: Int) -> Entity {
        var attributes = [String: AttributeValue]()
        for pair in self.attributes(of: doc) {
            attributes[name(attributeNames[Int(attribute(ofValue: pairValue[pair]))])] = attributeValue(at: pair)
        }
        var localized = [String: LocalizedText]()
        for entry in Int(docLocalizedStart[doc])..<Int(docLocalizedStart[doc + 1]) {
            localized[name(localizedLocale[entry])] = LocalizedText(
                title: string(localizedTitle[entry]), subtitle: string(localizedSubtitle[entry]))
        }
        var prints = [FeaturePrint]()
        for (model, rows) in vectors.sorted(by: { $0.key < $1.key }) {
            if let row = rows.row(of: UInt32(doc)) {
                let start = row * rows.dimension
                prints.append(FeaturePrint(model: model, values: Array(rows.rows[start..<(start + rows.dimension)])))
            }
        }
        return Entity(
            type: type(of: doc), id: id(of: doc), title: string(docTitle[doc]), subtitle: string(docSubtitle[doc]),
            category: category(of: doc),
            tags: (Int(docTagStart[doc])..<Int(docTagStart[doc + 1])).map { name(tags[$0]) },
            attributes: attributes, imageURL: string(docImage[doc]), thumbnailURL: string(docThumbnail[doc]),
            prints: prints,
            related: (Int(docRelatedStart[doc])..<Int(docRelatedStart[doc + 1])).map {
                EntityRef(type: name(relatedType[$0]), id: string(relatedID[$0]))
            },
            localized: localized, link: string(docLink[doc]))
    }

    /// The related references of a document.
    func related(of doc: Int) -> [EntityRef] {
        (Int(docRelatedStart[doc])..<Int(docRelatedStart[doc + 1])).map {
            EntityRef(type: name(relatedType[$0]), id: string(relatedID[$0]))
        }
    }

    // MARK: Lookups

    /// The document with this reference, if the segment has one (deleted or not).
    func doc(of ref: EntityRef) -> Int? {
        doc(of: ref, hash: Self.hash(type: ref.type, id: ref.id))
    }

    /// ``doc(of:)`` with the reference's ``hash(type:id:)`` already made.
    func doc(of ref: EntityRef, hash: UInt64) -> Int? {
        var low = 0
        var high = refHashes.count
        while low < high {
            let mid = (low + high) / 2
            if refHashes[mid] < hash { low = mid + 1 } else { high = mid }
        }
        while low < refHashes.count && refHashes[low] == hash {
            let doc = Int(refDocs[low])
            if string(docID[doc], equals: ref.id) && name(typeNames[Int(docType[doc])], equals: ref.type) {
                return doc
            }
            low += 1
        }
        return nil
    }

    /// A term's number, if the segment has the term.
    func term(_ term: String) -> Int? { self.term(TermKey(term)) }

    /// A term's number, if the segment has the term, looked up by the hash its key carries: a
    /// search over many segments hashes each term once, not once per segment.
    func term(_ key: TermKey) -> Int? {
        guard !termTable.isEmpty else { return nil }
        let mask = termTable.count - 1
        var slot = Int(truncatingIfNeeded: key.hash) & mask
        while termTable[slot] != 0 {
            let number = Int(termTable[slot] - 1)
            if name(termStrings[number], equals: key.text) { return number }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// How many documents have term `number`.
    func postingCount(_ number: Int) -> Int { Int(postingStart[number + 1]) - Int(postingStart[number]) }

    /// Term `number`'s postings: its documents (ascending numbers, or bits for a common term),
    /// with their saturated normalised frequencies (``TextIndex/saturate(_:)`` of each) by
    /// position in the list.
    ///
    /// A large mapped segment's lists are copies that `reads` holds until it is released (see
    /// ``PostingReads``); others are read in place.
    func postings(_ number: Int, reads: PostingReads) -> (docs: PostingDocs, frequencies: PostingFrequencies) {
        let range = Int(postingStart[number])..<Int(postingStart[number + 1])
        let frequencies = PostingFrequencies(
            codes: list(UnsafeBufferPointer(rebasing: postingFrequencyCodes[range]), reads: reads),
            values: frequencyValues)
        if let bits = denseBits(number) { return (.bits(list(bits, reads: reads)), frequencies) }
        let bytes = Int(postingDocStart[number])..<Int(postingDocStart[number + 1])
        let gaps = list(UnsafeBufferPointer(rebasing: postingGaps[bytes]), padding: DocumentGaps.padding, reads: reads)
        return (.gaps(GapList(bytes: gaps, count: range.count, limit: count)), frequencies)
    }

    /// A list's elements, in place or, when the segment's lists are read with `pread`
    /// (``readsPostingsWithCopies``), as a copy `reads` holds. `padding` bytes past the list are
    /// copied too, for a reader that reads past its end (``DocumentGaps``: its sections end with
    /// that padding, so they are always there).
    private func list<Element>(
        _ elements: UnsafeBufferPointer<Element>, padding: Int = 0, reads: PostingReads
    ) -> UnsafeBufferPointer<Element> {
        guard readsPostingsWithCopies, let start = elements.baseAddress, !elements.isEmpty else { return elements }
        let copy = reads.copy(start, count: elements.count * MemoryLayout<Element>.stride + padding, of: region)
        return UnsafeBufferPointer(start: copy.assumingMemoryBound(to: Element.self), count: elements.count)
    }

    /// `probe`'s bits and ranks, in place or as copies `reads` holds (a common term's bits are
    /// read whole: 12.5 KB and 6 KB a list at 100k documents).
    private func list(_ probe: DenseProbe, reads: PostingReads) -> DenseProbe {
        DenseProbe(
            words: list(UnsafeBufferPointer(start: probe.words, count: probe.wordCount), reads: reads).baseAddress!,
            ranks: list(UnsafeBufferPointer(start: probe.ranks, count: probe.wordCount), reads: reads).baseAddress!,
            wordCount: probe.wordCount)
    }

    /// Term `number`'s postings as bits, when the list is common enough to be kept that way
    /// (``DenseBits``).
    func denseBits(_ number: Int) -> DenseProbe? {
        guard DenseBits.qualifies(postings: postingCount(number), documents: count) else { return nil }
        return Self.bits(of: number, among: denseTerms, words: denseWords, ranks: denseRanks, documents: count)
    }

    /// The bits of list `number`, when `numbers` (ascending) has it, from `words` and `ranks`.
    private static func bits(
        of number: Int, among numbers: UnsafeBufferPointer<UInt32>, words: UnsafeBufferPointer<UInt64>,
        ranks: UnsafeBufferPointer<UInt32>, documents: Int
    ) -> DenseProbe? {
        let place = numbers.partitionPoint { $0 >= UInt32(number) }
        guard place < numbers.count, numbers[place] == UInt32(number) else { return nil }
        let wordCount = DenseBits.wordCount(documents: documents)
        return DenseProbe(
            words: words.baseAddress! + place * wordCount, ranks: ranks.baseAddress! + place * wordCount,
            wordCount: wordCount)
    }

    /// The exact phrase of this hash's place in the segment's phrase table, if a title or tag of
    /// the segment has it.
    func phrase(hash: UInt64) -> Int? {
        let place = phraseHashes.partitionPoint { $0 >= hash }
        return place < phraseHashes.count && phraseHashes[place] == hash ? place : nil
    }

    /// The documents of phrase `place` (``phrase(hash:)``): packed gaps, or bits for a phrase that
    /// many documents have (a common single-word tag); copies that `reads` holds when the
    /// segment's lists are read with `pread` (see ``postings(_:reads:)``).
    func phraseDocs(_ place: Int, reads: PostingReads) -> PostingDocs {
        if let bits = Self.bits(
            of: place, among: densePhrases, words: densePhraseWords, ranks: densePhraseRanks, documents: count)
        {
            return .bits(list(bits, reads: reads))
        }
        let range = Int(phraseStart[place])..<Int(phraseStart[place + 1])
        let bytes = list(UnsafeBufferPointer(rebasing: phraseGaps[range]), padding: DocumentGaps.padding, reads: reads)
        return .gaps(GapList(bytes: bytes, count: DocumentGaps.count(bytes), limit: count))
    }

    /// Counts over every document of the segment, deleted or not, computed once.
    var totals: FacetTotals {
        if let cached = totalsCache.withLock({ $0 }) { return cached }
        let computed = FacetTotals(counting: self, docs: 0..<count)
        totalsCache.withLock { $0 = computed }
        return computed
    }

    // MARK: Hashes

    /// FNV-1a over the UTF-8 of a string (``NameTable/hash(_:)``, which a builder numbers terms by).
    static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { NameTable.hash($0) }
    }

    /// The hash of a reference: type and id, separated by a byte neither contains.
    static func hash(type: String, id: String) -> UInt64 { hash(type + "\u{0}" + id) }

    /// The hash of an analyzed phrase: its terms joined by spaces.
    static func hash(phrase: [String]) -> UInt64 { hash(phrase.joined(separator: " ")) }
}

/// A term and the hash every segment's term table is looked up by, computed once.
struct TermKey: Sendable {
    let text: String
    let hash: UInt64

    init(_ text: String) {
        self.text = text
        hash = Segment.hash(text)
    }
}

#if canImport(Glibc)
    internal import Glibc
#endif
