import SearchSession

/// A catalog line (or a few) through the JSON Lines loader; what loads is indexed and queried.
enum CatalogLineTarget {
    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        let file = CatalogLoader.parse(Array(input), baseDirectory: nil)
        for error in file.errors {
            _ = error.description
        }
        guard !file.entities.isEmpty else { return true }
        let engine = SearchEngine(catalog: file)
        let labels = file.entities.prefix(2).map { Label($0.title, confidence: 0.9) }
        _ = try? engine.query(QueryRequest(descriptor: Descriptor(labels: labels), limit: 10))
        return true
    }
}
