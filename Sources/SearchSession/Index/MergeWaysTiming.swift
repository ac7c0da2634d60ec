extension SearchEngine {
    /// Times building a segment of the first `documents` documents of the current snapshot's
    /// first segment the two ways a merge can: by number, as merges do
    /// (``SegmentBuilder/add(_:of:numbers:)``), and from each document read back as an entity,
    /// as they did before. The ways alternate for `rounds` rounds; each round's time is
    /// returned per way, and whether the two built the same bytes.
    @_spi(Benchmarks) public func timeMergeWays(
        documents: Int, rounds: Int
    ) -> (byNumber: [Duration], fromEntities: [Duration], sameBytes: Bool) {
        let snapshot = self.snapshot
        guard let segment = snapshot.segments.first else { return ([], [], true) }
        let docs = 0..<min(documents, segment.count)
        func timed(_ add: (inout SegmentBuilder) -> Void) -> (Duration, ByteRegion) {
            let start = ContinuousClock.now
            var builder = SegmentBuilder()
            add(&builder)
            let region = builder.finish(analyzer: snapshot.analyzer)
            _ = builder.finishLocalFeatures()
            return (ContinuousClock.now - start, region)
        }
        var byNumber = [Duration]()
        var fromEntities = [Duration]()
        var sameBytes = true
        for _ in 0..<rounds {
            let (numberTime, numberRegion) = timed { builder in
                var numbers = SegmentBuilder.SourceNumbers(segment)
                for doc in docs { builder.add(doc, of: segment, numbers: &numbers) }
            }
            let (entityTime, entityRegion) = timed { builder in
                for doc in docs { builder.addReadBack(doc, of: segment) }
            }
            byNumber.append(numberTime)
            fromEntities.append(entityTime)
            sameBytes =
                sameBytes && numberRegion.count == entityRegion.count
                && numberRegion.bytes(at: 0, count: numberRegion.count)
                    == entityRegion.bytes(at: 0, count: entityRegion.count)
        }
        return (byNumber, fromEntities, sameBytes)
    }
}
