/// The catalog log's entry decoding, open to the fuzz target in Fuzz/: an entry's bytes are what
/// recovery reads back from disk after a crash, so no bytes may crash it or read back as
/// something it would not write again.
@_spi(Fuzzing) public enum CatalogLogEntryCheck {
    /// Decodes `bytes` as one log entry, as recovery and a checkpoint's fold do, and checks what
    /// reads back: an unreadable entry is a storage error naming its position; a readable one
    /// encodes to bytes that read back to the same bytes again, and its upserted entities are
    /// the records (by reference) that a fold copies.
    ///
    /// - Returns: The check that failed, or `nil` when all held.
    public static func failure(decoding bytes: [UInt8]) -> String? {
        let position: UInt64 = 7
        let change: CatalogChange
        do {
            change = try CatalogChange(encoded: bytes, position: position)
        } catch {
            guard error.code == .storage, error.message.contains("catalog log"), error.message.contains("7") else {
                return "an unreadable entry gave \(error.code): \(error.message)"
            }
            return nil
        }
        let encoded = change.encoded()
        guard let again = try? CatalogChange(encoded: encoded, position: position) else {
            return "a readable entry encodes to bytes that do not read back"
        }
        guard again.encoded() == encoded else { return "a readable entry does not encode the same twice" }
        guard case .upsert(let entities) = change else { return nil }
        guard let records = try? CatalogChange.entityRecords(encoded: bytes, position: position) else {
            return "a readable upsert's records cannot be read for folding"
        }
        guard records.map(\.ref) == entities.map(\.ref) else {
            return "folding reads other references than decoding"
        }
        return nil
    }
}
