import Testing

@testable import SearchSession

/// The loader reports its progress so a big catalog does not look like a hang.
@Suite struct CatalogLoadProgressTests {
    @Test("progress comes every few hundred lines, grows, and ends at the whole file")
    func reportsGrowingProgress() {
        let lines = (0..<2_000).map { #"{"type":"album","id":"a\#($0)","title":"Album \#($0)"}"# }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        var reports: [CatalogLoadProgress] = []
        let file = CatalogLoader.parse(bytes, progress: { reports.append($0) })
        #expect(file.entities.count == 2_000)
        // 512, 1024 and 1536 lines, then the end (the empty line after the last newline counts).
        #expect(reports.map(\.lines) == [512, 1_024, 1_536, 2_001])
        #expect(reports.map(\.bytesRead) == reports.map(\.bytesRead).sorted())
        #expect(reports.allSatisfy { $0.totalBytes == bytes.count })
        #expect(reports.last?.fraction == 1)
        #expect(reports[0].fraction > 0.2 && reports[0].fraction < 0.3)
    }

    @Test("an empty catalog still reports once, complete")
    func emptyCatalog() {
        var reports: [CatalogLoadProgress] = []
        _ = CatalogLoader.parse([], progress: { reports.append($0) })
        #expect(reports == [CatalogLoadProgress(bytesRead: 0, totalBytes: 0, lines: 1)])
        #expect(reports[0].fraction == 1)
    }
}
