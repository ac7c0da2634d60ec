@_spi(Fuzzing) import SearchSession

/// One entry of the catalog log (the binary form, or JSON as older logs hold) through the
/// decoding that recovery and folding use.
enum CatalogLogEntryTarget {
    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        if let failure = CatalogLogEntryCheck.failure(decoding: Array(input)) {
            preconditionFailure("catalog-log-entry: \(failure)")
        }
        return true
    }
}
