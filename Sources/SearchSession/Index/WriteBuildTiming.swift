extension SearchEngine {
    /// Times building the segment a write of `batch` entities builds, for consecutive batches of
    /// `entities` (each of them validated, as a write's are): each build's time, and a checksum of
    /// all the bytes built, so a change to the builder can be shown to build the same segments.
    @_spi(Benchmarks) public func timeWriteBuilds(
        of entities: [Entity], batch: Int
    ) -> (times: [Duration], checksum: UInt64) {
        let analyzer = snapshot.analyzer
        var times = [Duration]()
        var checksum: UInt64 = 0xcbf2_9ce4_8422_2325
        for first in stride(from: 0, to: entities.count - batch + 1, by: batch) {
            let start = ContinuousClock.now
            var builder = SegmentBuilder()
            for entity in entities[first..<(first + batch)] { builder.add(entity) }
            let region = builder.finish(analyzer: analyzer)
            times.append(ContinuousClock.now - start)
            // FNV-1a over the bytes, in eight-byte steps.
            let words = region.count / 8
            let base = region.base.assumingMemoryBound(to: UInt64.self)
            for index in 0..<words { checksum = (checksum ^ base[index]) &* 0x100_0000_01b3 }
        }
        return (times, checksum)
    }
}
