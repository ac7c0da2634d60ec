/// The catalog log's binary form of changes and entities.
///
/// JSON (Foundation's encoder and decoder) took about a quarter of a server's CPU under a load
/// of 1,000 upserts a second: each batch was encoded once for the log and, at the next
/// checkpoint, decoded and encoded again entity by entity to fold it. In this form a change is
/// its entities' records one after another, each with its length, so folding copies each
/// record's bytes as they are and reads only its type and id.
///
///     change   = version 0x01, kind ("u" upsert | "d" delete), count, count × item
///     item     = (upsert) length, entity record | (delete) string type, string id
///     entity   = version 0x01, strings type, id, title, subtitle, category, image URL,
///                thumbnail URL, link; count × tag string; count × attribute; count × print;
///                count × related (type, id); count × localized (locale, title, subtitle)
///     attribute = string name, 0 + string | 1 + float64
///     print    = string model, count × float32
///
/// Counts and lengths are LEB128 varints, numbers little-endian. Logs written before this form
/// hold JSON, which starts with `{`: both are read.
extension CatalogChange {
    static let binaryVersion: UInt8 = 1

    func encoded() -> [UInt8] {
        var writer = RecordWriter()
        writer.byte(Self.binaryVersion)
        switch self {
        case .upsert(let entities):
            writer.byte(UInt8(ascii: "u"))
            writer.count(entities.count)
            for entity in entities {
                let record = Self.encode(entity)
                writer.count(record.count)
                writer.bytes.append(contentsOf: record)
            }
        case .delete(let refs):
            writer.byte(UInt8(ascii: "d"))
            writer.count(refs.count)
            for ref in refs {
                writer.string(ref.type)
                writer.string(ref.id)
            }
        }
        return writer.bytes
    }

    /// One entity's record, as a change holds it and the log's folded rows keep it.
    static func encode(_ entity: Entity) -> [UInt8] {
        var writer = RecordWriter()
        writer.byte(binaryVersion)
        for text in [
            entity.type, entity.id, entity.title, entity.subtitle, entity.category, entity.imageURL,
            entity.thumbnailURL, entity.link,
        ] {
            writer.string(text)
        }
        writer.count(entity.tags.count)
        for tag in entity.tags { writer.string(tag) }
        writer.count(entity.attributes.count)
        // Sorted, so one entity always has the same bytes.
        for (name, value) in entity.attributes.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            switch value {
            case .string(let text):
                writer.byte(0)
                writer.string(text)
            case .number(let number):
                writer.byte(1)
                writer.little(number.bitPattern)
            }
        }
        writer.count(entity.prints.count)
        for print in entity.prints {
            writer.string(print.model)
            writer.count(print.values.count)
            for value in print.values { writer.little(value.bitPattern) }
        }
        writer.count(entity.related.count)
        for ref in entity.related {
            writer.string(ref.type)
            writer.string(ref.id)
        }
        writer.count(entity.localized.count)
        for (locale, text) in entity.localized.sorted(by: { $0.key < $1.key }) {
            writer.string(locale)
            writer.string(text.title)
            writer.string(text.subtitle)
        }
        return writer.bytes
    }

    /// The change in a log entry's bytes (this form or JSON).
    init(encoded bytes: [UInt8], position: UInt64) throws(SearchError) {
        guard bytes.first == Self.binaryVersion else {
            self = try Self.decodeJSON(bytes, position: position)
            return
        }
        var reader = RecordReader(bytes, what: "catalog log entry \(position)")
        reader.offset = 1
        switch try reader.byte() {
        case UInt8(ascii: "u"):
            var entities = [Entity]()
            for _ in 0..<(try reader.count()) {
                let length = try reader.count()
                entities.append(try Self.decodeEntity(reader.slice(length), position: position))
            }
            self = .upsert(entities)
        case UInt8(ascii: "d"):
            var refs = [EntityRef]()
            for _ in 0..<(try reader.count()) {
                refs.append(EntityRef(type: try reader.string(), id: try reader.string()))
            }
            self = .delete(refs)
        case let kind:
            throw reader.failure("has an unknown kind \(kind)")
        }
        try reader.expectEnd()
    }

    /// The entity records of an upsert entry with their references, without decoding the rest:
    /// what folding the log needs. `nil` for a delete.
    static func entityRecords(encoded bytes: [UInt8], position: UInt64) throws(SearchError)
        -> [(ref: EntityRef, record: ArraySlice<UInt8>)]?
    {
        guard bytes.first == binaryVersion else {
            guard case .upsert(let entities) = try decodeJSON(bytes, position: position) else { return nil }
            return entities.map { ($0.ref, encode($0)[...]) }
        }
        var reader = RecordReader(bytes, what: "catalog log entry \(position)")
        reader.offset = 1
        guard try reader.byte() == UInt8(ascii: "u") else { return nil }
        var records = [(ref: EntityRef, record: ArraySlice<UInt8>)]()
        for _ in 0..<(try reader.count()) {
            let record = try reader.slice(try reader.count())
            var head = RecordReader(record, what: "catalog log entry \(position)")
            guard try head.byte() == binaryVersion else { throw head.failure("has an entity of an unknown form") }
            records.append((EntityRef(type: try head.string(), id: try head.string()), record))
        }
        return records
    }

    /// One entity record (this form or JSON) of the log, at `position`.
    static func decodeEntity(_ bytes: some Collection<UInt8>, position: UInt64) throws(SearchError) -> Entity {
        guard bytes.first == binaryVersion else { return try decodeJSONEntity(Array(bytes), position: position) }
        var reader = RecordReader(bytes, what: "catalog log entity at \(position)")
        reader.offset = 1
        var entity = Entity(
            type: try reader.string(), id: try reader.string(), title: try reader.string(),
            subtitle: try reader.string(), category: try reader.string(), imageURL: try reader.string(),
            thumbnailURL: try reader.string(), link: try reader.string())
        for _ in 0..<(try reader.count()) { entity.tags.append(try reader.string()) }
        for _ in 0..<(try reader.count()) {
            let name = try reader.string()
            switch try reader.byte() {
            case 0: entity.attributes[name] = .string(try reader.string())
            case 1: entity.attributes[name] = .number(Double(bitPattern: try reader.little()))
            case let kind: throw reader.failure("has attribute \(name) of unknown kind \(kind)")
            }
        }
        for _ in 0..<(try reader.count()) {
            let model = try reader.string()
            var values = [Float]()
            for _ in 0..<(try reader.count()) { values.append(Float(bitPattern: try reader.little())) }
            entity.prints.append(FeaturePrint(model: model, values: values))
        }
        for _ in 0..<(try reader.count()) {
            entity.related.append(EntityRef(type: try reader.string(), id: try reader.string()))
        }
        for _ in 0..<(try reader.count()) {
            let locale = try reader.string()
            entity.localized[locale] = LocalizedText(title: try reader.string(), subtitle: try reader.string())
        }
        try reader.expectEnd()
        return entity
    }
}
