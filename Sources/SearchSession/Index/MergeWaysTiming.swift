extension SearchEngine {
    /// Times building a segment of the first `documents` documents of the current snapshot's
    /// first segment the two ways a merge can: by number, as merges do
    /// (``SegmentBuilder/add(_:of:numbers:)``), and from each document read back as an entity,
    /// as they did before. The ways alternate for `rounds` rounds; each round's seconds are
    /// returned per way, and whether the two built the same bytes.
    @_spi(Benchmarks) public func timeMergeWays(
        documents: Int, rounds: Int
    ) -> (byNumber: [Double], fromEntities: [Double], sameBytes: Bool) {
        let snapshot = self.snapshot
        guard let segment = snapshot.segments.first else { return ([], [], true) }
        let docs = 0..<min(documents, segment.count)
        func seconds(_ add: (inout SegmentBuilder) -> Void) -> (Double, ByteRegion) {
            let start = ContinuousClock.now
            var builder = SegmentBuilder()
            add(&builder)
            let region = builder.finish(analyzer: snapshot.analyzer)
            _ = builder.finishLocalFeatures()
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, region)
        }
        var byNumber = [Double]()
        var fromEntities = [Double]()
        var sameBytes = true
        for _ in 0..<rounds {
            let (numberSeconds, numberRegion) = seconds { builder in
                var numbers = SegmentBuilder.SourceNumbers(segment)
                for doc in docs { builder.add(doc, of: segment, numbers: &numbers) }
            }
            let (entitySeconds, entityRegion) = seconds { builder in
                for doc in docs {
                    var entity = segment.entity(doc)
                    entity.localFeatures = segment.localFeatures.localFeatures(of: doc)
                    builder.add(entity)
                }
            }
            byNumber.append(numberSeconds)
            fromEntities.append(entitySeconds)
            sameBytes =
                sameBytes && numberRegion.count == entityRegion.count
                && numberRegion.bytes(at: 0, count: numberRegion.count)
                    == entityRegion.bytes(at: 0, count: entityRegion.count)
        }
        return (byNumber, fromEntities, sameBytes)
    }
}
