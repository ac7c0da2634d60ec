internal import Foundation

/// The binary form stored sessions take in SQLite and Redis.
///
/// Foundation's JSON encoder took about a tenth of a Capture's CPU on the embedded default (every
/// Capture stores its session) and its decoder a share of every page after the first. In this
/// form a record is its fields one after another:
///
///     record  = version 0x01, string id, count × label, count × print, string source,
///               string locale, string query text, uint32 page size, int64 created at,
///               int64 expires at, optional max distance, optional picture match
///     label   = string text, float32 confidence
///     print   = string model, count × float32
///     optional = 0 | 1 + the value (max distance: float32; picture match: string type,
///               string id, float32 distance)
///
/// Counts and lengths are LEB128 varints, numbers little-endian (see
/// ``RecordWriter``). Sessions stored before this form hold JSON, which starts with `{`: both
/// are read, so sessions live across an upgrade.
extension SessionRecord {
    static let binaryVersion: UInt8 = 1

    /// The record's bytes in the binary form.
    func encoded() -> [UInt8] {
        var writer = RecordWriter()
        writer.byte(Self.binaryVersion)
        writer.string(id)
        writer.count(labels.count)
        for label in labels {
            writer.string(label.text)
            writer.little(label.confidence.bitPattern)
        }
        writer.count(prints.count)
        for print in prints {
            writer.string(print.model)
            writer.count(print.values.count)
            for value in print.values { writer.little(value.bitPattern) }
        }
        writer.string(source.rawValue)
        writer.string(locale)
        writer.string(queryText)
        writer.little(UInt32(clamping: pageSize))
        writer.little(createdAtUnixMs)
        writer.little(expiresAtUnixMs)
        if let maxDistance {
            writer.byte(1)
            writer.little(maxDistance.bitPattern)
        } else {
            writer.byte(0)
        }
        if let pictureMatch {
            writer.byte(1)
            writer.string(pictureMatch.entity.type)
            writer.string(pictureMatch.entity.id)
            writer.little(pictureMatch.distance.bitPattern)
        } else {
            writer.byte(0)
        }
        return writer.bytes
    }

    /// The record in `bytes` (the binary form or JSON).
    ///
    /// - Throws: ``SearchError/Code/storage`` naming the session when the bytes are neither.
    init(encoded bytes: [UInt8], id: String) throws(SearchError) {
        guard bytes.first == Self.binaryVersion else {
            do {
                self = try JSONDecoder().decode(SessionRecord.self, from: Data(bytes))
            } catch {
                throw SearchError(code: .storage, message: "session \(id) is unreadable", cause: "\(error)")
            }
            return
        }
        var reader = RecordReader(bytes, what: "session \(id)")
        reader.offset = 1
        let storedID = try reader.string()
        var labels = [Label]()
        for _ in 0..<(try reader.count()) {
            labels.append(Label(try reader.string(), confidence: Float(bitPattern: try reader.little())))
        }
        var prints = [FeaturePrint]()
        for _ in 0..<(try reader.count()) {
            let model = try reader.string()
            var values = [Float]()
            for _ in 0..<(try reader.count()) { values.append(Float(bitPattern: try reader.little())) }
            prints.append(FeaturePrint(model: model, values: values))
        }
        let sourceName = try reader.string()
        guard let source = Source(rawValue: sourceName) else { throw reader.failure("has an unknown source") }
        let locale = try reader.string()
        let queryText = try reader.string()
        let pageSize: UInt32 = try reader.little()
        let createdAt: Int64 = try reader.little()
        let expiresAt: Int64 = try reader.little()
        var maxDistance: Float?
        if try reader.flag() { maxDistance = Float(bitPattern: try reader.little()) }
        var pictureMatch: PictureMatch?
        if try reader.flag() {
            let entity = EntityRef(type: try reader.string(), id: try reader.string())
            pictureMatch = PictureMatch(entity: entity, distance: Float(bitPattern: try reader.little()))
        }
        try reader.expectEnd()
        self.init(
            id: storedID, labels: labels, prints: prints, source: source, locale: locale, queryText: queryText,
            pageSize: Int(pageSize), createdAtUnixMs: createdAt, expiresAtUnixMs: expiresAt, maxDistance: maxDistance,
            pictureMatch: pictureMatch)
    }
}
