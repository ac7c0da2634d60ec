/// Facet counts of one segment over all its documents (deleted ones too), in the segment's own
/// numbering: what the match-all and browse states of a snapshot start from, so they never scan
/// the catalog per call (a snapshot subtracts its few deleted documents instead).
struct FacetTotals: Sendable {
    /// Documents per type number.
    let types: [Int32]
    /// Documents per category number, each counted for its category and every ancestor.
    let categories: [Int32]
    /// Documents per string value number.
    let values: [Int32]
    /// Per attribute number: the documents' numeric values, ascending (for bucket counts by
    /// binary search under any bucket layout).
    let numbers: [[Double]]

    init(counting segment: Segment, docs: Range<Int>) {
        var types = [Int32](repeating: 0, count: segment.typeNames.count)
        var categories = [Int32](repeating: 0, count: segment.categoryNames.count)
        var values = [Int32](repeating: 0, count: segment.valueStrings.count)
        var numbers = [[Double]](repeating: [], count: segment.attributeNames.count)
        for doc in docs {
            types[Int(segment.docType[doc])] += 1
            var category = segment.docCategory[doc]
            while category != .max {
                categories[Int(category)] += 1
                category = segment.categoryParent[Int(category)]
            }
            for p in segment.attributes(of: doc) {
                let value = segment.attributeValue[p]
                if value == .max {
                    numbers[Int(segment.attributeName[p])].append(segment.attributeNumber[p])
                } else {
                    values[Int(value)] += 1
                }
            }
        }
        self.types = types
        self.categories = categories
        self.values = values
        self.numbers = numbers.map { $0.sorted() }
    }

    /// How many of an attribute's numbers fall in each bucket of `buckets`, added to `counts`.
    ///
    /// The bucket of a value (``NumberBuckets/index(of:)``) never decreases as the value grows,
    /// so each bucket's first value is found by binary search with that very function: the
    /// counts are the ones a per-document pass would make, to the last rounding.
    func addCounts(attribute: Int, in buckets: NumberBuckets, to counts: UnsafeMutableBufferPointer<Int32>) {
        let sorted = numbers[attribute]
        guard !sorted.isEmpty else { return }
        func firstIndex(inBucketAtLeast bucket: Int) -> Int {
            var lower = 0
            var upper = sorted.count
            while lower < upper {
                let mid = (lower + upper) / 2
                if buckets.index(of: sorted[mid]) >= bucket { upper = mid } else { lower = mid + 1 }
            }
            return lower
        }
        var start = 0
        for bucket in 0..<buckets.count {
            let end = bucket + 1 < buckets.count ? firstIndex(inBucketAtLeast: bucket + 1) : sorted.count
            counts[bucket] += Int32(end - start)
            start = end
        }
    }
}
