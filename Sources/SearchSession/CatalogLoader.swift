internal import Foundation
internal import JSONReading

/// A catalog line that could not be loaded.
public struct CatalogLineError: Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line number in the file.
    public var line: Int
    /// Why the line was rejected.
    public var reason: String

    public var description: String { "line \(line): \(reason)" }
}

// Kept in the index manifest, so a restart on a persisted index reports them again.
extension CatalogLineError: Codable {}

/// What a catalog file held: entities, synonym groups and the lines that were rejected.
public struct CatalogFile: Sendable {
    /// The entities, in file order.
    public var entities: [Entity]
    /// Synonym groups; the first term of a group is its canonical form.
    public var synonyms: [[String]]
    /// Rejected lines; the other lines still loaded.
    public var errors: [CatalogLineError]
    /// Tells this file's bytes from any other's: the catalog log keeps API writes only on top of
    /// the file they were made on (see ``CatalogLog``).
    public var fingerprint: String
    /// The file's stamp when it was read, if the stamp vouches for these bytes (see
    /// ``CatalogLoader/fingerprint(path:remembered:nowNs:)``); `nil` for a catalog from parts.
    public var stamp: FileStamp?

    /// Creates a catalog from parts (an upsert batch, a test); its fingerprint names its entity
    /// count only, so give one when the catalog is to be logged.
    public init(
        entities: [Entity], synonyms: [[String]] = [], errors: [CatalogLineError] = [], fingerprint: String? = nil
    ) {
        self.entities = entities
        self.synonyms = synonyms
        self.errors = errors
        self.fingerprint = fingerprint ?? "entities-\(entities.count)"
    }
}

/// A catalog file's fingerprint, and whether a restart may take it again without reading the file.
public struct CatalogFingerprint: Sendable, Equatable {
    /// The fingerprint of the file's bytes (``CatalogFile/fingerprint``).
    public var value: String
    /// The file's stamp when `value` was taken, if it vouches for it: the file stood unchanged
    /// while it was read and for ``FileStamp/settleTimeNs`` before. `nil` when it did not.
    public var stamp: FileStamp?
    /// Whether the file was read for it; `false` when a remembered stamp vouched for the value.
    public var readFile: Bool
}

/// How far a catalog load has come, for a progress display.
public struct CatalogLoadProgress: Sendable, Equatable {
    /// Bytes of the file read so far.
    public var bytesRead: Int
    /// The file's size.
    public var totalBytes: Int
    /// Lines read so far.
    public var lines: Int

    /// The fraction done, 0...1.
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesRead) / Double(totalBytes) }
}

/// Reads the JSON Lines catalog format described in `CatalogFormat.md`.
public enum CatalogLoader {
    /// How many lines pass between two progress reports: often enough for a smooth display,
    /// rarely enough to cost nothing.
    static let progressInterval = 512

    /// Loads a catalog file; `image_file` paths are read relative to the file's directory and the
    /// built-in feature print is computed from each image once, here.
    ///
    /// - Parameters:
    ///   - path: The catalog file.
    ///   - progress: Called every few hundred lines and once at the end (image prints make big
    ///     catalogs take seconds).
    /// - Returns: The entities, synonyms and rejected lines.
    /// - Throws: ``SearchError`` when the file cannot be read at all.
    public static func load(
        path: String, progress: ((CatalogLoadProgress) -> Void)? = nil
    ) throws(SearchError) -> CatalogFile {
        var entities = [Entity]()
        var file = try load(path: path, progress: progress) { entities.append($0) }
        file.entities = entities
        return file
    }

    /// Loads a catalog file, handing each good entity to `sink` as it is read (see
    /// ``parse(_:baseDirectory:progress:sink:)``).
    static func load(
        path: String, progress: ((CatalogLoadProgress) -> Void)?, sink: (Entity) -> Void
    ) throws(SearchError) -> CatalogFile {
        let before = FileStamp.of(path)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SearchError(code: .invalidCatalog, message: "cannot read catalog \(path)", cause: "\(error)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var file = parse(Array(data), baseDirectory: directory, progress: progress, sink: sink)
        file.stamp = vouchingStamp(before: before, after: FileStamp.of(path), nowNs: FileStamp.nowNs())
        return file
    }

    /// The fingerprint of the catalog file at `path`. When `remembered` was taken under the stamp
    /// the file still has, it is the answer and the file is not read: a restart on a gigabyte
    /// catalog that has not changed reads none of it (as `make`, `rsync` and git trust a file's
    /// stamp). Otherwise the file is read whole.
    ///
    /// - Parameters:
    ///   - remembered: A fingerprint taken before (kept in the index manifest), with its stamp.
    ///   - nowNs: The wall clock, for whether the file has settled (a parameter for tests).
    /// - Throws: ``SearchError/Code/invalidCatalog`` when the file cannot be read.
    public static func fingerprint(
        path: String, remembered: (value: String, stamp: FileStamp)?, nowNs: Int64 = FileStamp.nowNs()
    ) throws(SearchError) -> CatalogFingerprint {
        let before = FileStamp.of(path)
        if let remembered, let before, remembered.stamp == before {
            return CatalogFingerprint(value: remembered.value, stamp: before, readFile: false)
        }
        let value = try fingerprint(path: path)
        let stamp = vouchingStamp(before: before, after: FileStamp.of(path), nowNs: nowNs)
        return CatalogFingerprint(value: value, stamp: stamp, readFile: true)
    }

    /// The stamp that vouches for bytes read between two looks at a file: the same both times
    /// (nothing was written meanwhile) and settled (nothing was written in the tick before).
    private static func vouchingStamp(before: FileStamp?, after: FileStamp?, nowNs: Int64) -> FileStamp? {
        guard let before, before == after, before.isSettled(atNs: nowNs) else { return nil }
        return before
    }

    /// FNV-1a (64 bit) over the bytes, eight at a time, with the length: enough to notice an edited
    /// file, cheap enough for a gigabyte at start.
    static func fingerprint(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBytes { hash = fingerprintStep(hash, $0) }
        return "fnv64-\(String(hash, radix: 16))-\(bytes.count)"
    }

    /// Folds bytes into the hash: whole words first, then single bytes (so only the last chunk
    /// of a file may have a length that is not a multiple of 8).
    private static func fingerprintStep(_ hash: UInt64, _ raw: UnsafeRawBufferPointer) -> UInt64 {
        var hash = hash
        let words = raw.count / 8
        for i in 0..<words {
            hash ^= raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
            hash &*= 0x100_0000_01b3
        }
        for i in (words * 8)..<raw.count {
            hash ^= UInt64(raw[i])
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// The fingerprint of a file's bytes (as ``fingerprint(of:)``), read a mebibyte at a time.
    ///
    /// - Throws: ``SearchError/Code/invalidCatalog`` when the file cannot be read.
    public static func fingerprint(path: String) throws(SearchError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SearchError(code: .invalidCatalog, message: "cannot read catalog \(path)")
        }
        defer { try? handle.close() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var total = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw SearchError(code: .invalidCatalog, message: "cannot read catalog \(path)", cause: "\(error)")
            }
            if chunk.isEmpty { break }
            total += chunk.count
            chunk.withUnsafeBytes { hash = fingerprintStep(hash, $0) }
        }
        return "fnv64-\(String(hash, radix: 16))-\(total)"
    }

    /// Parses catalog text.
    ///
    /// - Parameters:
    ///   - bytes: The JSON Lines bytes.
    ///   - baseDirectory: Where `image_file` paths are relative to; `nil` rejects lines with one.
    ///   - progress: Called every few hundred lines and once at the end.
    /// - Returns: The entities, synonyms and rejected lines.
    public static func parse(
        _ bytes: [UInt8], baseDirectory: String? = nil, progress: ((CatalogLoadProgress) -> Void)? = nil
    ) -> CatalogFile {
        var entities = [Entity]()
        var file = parse(bytes, baseDirectory: baseDirectory, progress: progress) { entities.append($0) }
        file.entities = entities
        return file
    }

    /// Parses catalog text, handing each good entity to `sink` as it is read instead of keeping
    /// them: a large catalog goes into an index without all its entities in memory at once.
    ///
    /// - Parameters:
    ///   - bytes: The JSON Lines bytes.
    ///   - baseDirectory: Where `image_file` paths are relative to; `nil` rejects lines with one.
    ///   - progress: Called every few hundred lines and once at the end.
    ///   - sink: Called with each entity, in file order.
    /// - Returns: The synonyms and rejected lines (no entities).
    static func parse(
        _ bytes: [UInt8], baseDirectory: String?, progress: ((CatalogLoadProgress) -> Void)?,
        sink: (Entity) -> Void
    ) -> CatalogFile {
        var result = CatalogFile(entities: [], synonyms: [], errors: [], fingerprint: Self.fingerprint(of: bytes))
        var seen = [EntityRef: Int]()
        var lineNumber = 0
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            lineNumber += 1
            let line = bytes[start..<end]
            start = end + 1
            if let progress, lineNumber % progressInterval == 0 {
                progress(
                    CatalogLoadProgress(bytesRead: min(start, bytes.count), totalBytes: bytes.count, lines: lineNumber))
            }
            let trimmed = line.drop(while: isSpace).reversed().drop(while: isSpace)
            if trimmed.isEmpty { continue }
            do throws(SearchError) {
                let object: JSONDocument
                do {
                    object = try JSONDocument.parse(line)
                } catch {
                    throw SearchError(
                        code: .invalidCatalog, message: "not valid JSON",
                        cause: "\(error.message) at byte \(error.offset + 1)")
                }
                guard case .object = object else {
                    throw SearchError(code: .invalidCatalog, message: "expected a JSON object, found \(object.kind)")
                }
                if let synonyms = object["synonyms"] {
                    result.synonyms.append(try parseSynonyms(synonyms, object: object))
                    continue
                }
                let entity = try parseEntity(object, baseDirectory: baseDirectory)
                if let first = seen[entity.ref] {
                    throw SearchError(
                        code: .invalidCatalog, message: "duplicate entity \(entity.ref) (first on line \(first))")
                }
                seen[entity.ref] = lineNumber
                sink(entity)
            } catch {
                var reason = error.message
                if let cause = error.cause { reason += ": \(cause)" }
                result.errors.append(CatalogLineError(line: lineNumber, reason: reason))
            }
        }
        progress?(CatalogLoadProgress(bytesRead: bytes.count, totalBytes: bytes.count, lines: lineNumber))
        return result
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }

    private static func parseSynonyms(_ value: JSONDocument, object: JSONDocument) throws(SearchError) -> [String] {
        if object.keys.count != 1 { throw fail("a synonym line has only the \"synonyms\" key") }
        guard case .array(let items) = value else { throw fail("\"synonyms\" must be an array of strings") }
        var terms = [String]()
        for item in items {
            guard case .string(let term) = item, !term.isEmpty else {
                throw fail("\"synonyms\" must be an array of non-empty strings")
            }
            terms.append(term)
        }
        if terms.count < 2 { throw fail("\"synonyms\" needs at least two terms") }
        return terms
    }

    static func parseEntity(_ object: JSONDocument, baseDirectory: String?) throws(SearchError) -> Entity {
        let known: Set<String> = [
            "type", "id", "title", "subtitle", "category", "tags", "attributes", "image", "thumbnail",
            "image_file", "print", "prints", "related", "localized", "link",
        ]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw fail("unknown key \"\(unknown)\"")
        }
        var entity = Entity(
            type: try string(object, "type", required: true), id: try string(object, "id", required: true),
            title: try string(object, "title", required: true))
        entity.subtitle = try string(object, "subtitle")
        entity.category = normalizeCategory(try string(object, "category"))
        entity.imageURL = try string(object, "image")
        entity.thumbnailURL = try string(object, "thumbnail")
        entity.link = try string(object, "link")
        if let tags = object["tags"] {
            guard case .array(let items) = tags else { throw fail("\"tags\" must be an array of strings") }
            for item in items {
                guard case .string(let tag) = item else { throw fail("\"tags\" must be an array of strings") }
                entity.tags.append(tag)
            }
        }
        if let attributes = object["attributes"] {
            guard case .object(let fields) = attributes else { throw fail("\"attributes\" must be an object") }
            for (name, value) in fields {
                switch value {
                case .string(let text): entity.attributes[name] = .string(text)
                case .number(let number): entity.attributes[name] = .number(number)
                default: throw fail("attribute \"\(name)\" must be a string or a number, not \(value.kind)")
                }
            }
        }
        if let print = object["print"] { entity.prints.append(try parsePrint(print)) }
        if let prints = object["prints"] {
            guard case .array(let items) = prints else { throw fail("\"prints\" must be an array") }
            for print in items { entity.prints.append(try parsePrint(print)) }
        }
        if let related = object["related"] {
            guard case .array(let items) = related else { throw fail("\"related\" must be an array") }
            for item in items {
                guard case .object = item else { throw fail("\"related\" entries must be {\"type\", \"id\"}") }
                entity.related.append(
                    EntityRef(
                        type: try string(item, "type", required: true), id: try string(item, "id", required: true)))
            }
        }
        if let localized = object["localized"] {
            guard case .object(let locales) = localized else { throw fail("\"localized\" must be an object") }
            for (locale, value) in locales {
                guard case .object = value else {
                    throw fail("\"localized\".\"\(locale)\" must be {\"title\", \"subtitle\"}")
                }
                entity.localized[locale] = LocalizedText(
                    title: try string(value, "title"), subtitle: try string(value, "subtitle"))
            }
        }
        if let file = object["image_file"] {
            guard case .string(let relative) = file, !relative.isEmpty else {
                throw fail("\"image_file\" must be a non-empty string")
            }
            guard let baseDirectory else { throw fail("\"image_file\" needs a catalog file to be relative to") }
            let path = relative.hasPrefix("/") ? relative : baseDirectory + "/" + relative
            let image = try ImageDecoder.decode(path: path)
            let print = FeaturePrinter.print(image)
            entity.prints.removeAll { $0.model == print.model }
            entity.prints.append(print)
            entity.localFeatures = LocalFeatures.extract(image)
        }
        try entity.validate()
        return entity
    }

    private static func parsePrint(_ value: JSONDocument) throws(SearchError) -> FeaturePrint {
        guard case .object = value, case .array(let items)? = value["values"] else {
            throw fail("a print must be {\"model\": string, \"values\": [numbers]}")
        }
        var values = [Float]()
        values.reserveCapacity(items.count)
        for item in items {
            guard case .number(let number) = item else { throw fail("print values must be numbers") }
            values.append(Float(number))
        }
        return FeaturePrint(model: try string(value, "model", required: true), values: values)
    }

    private static func string(_ object: JSONDocument, _ key: String, required: Bool = false) throws(SearchError)
        -> String
    {
        switch object[key] {
        case .string(let text)?:
            if required && text.isEmpty { throw fail("\"\(key)\" must not be empty") }
            return text
        case nil, .null?:
            if required { throw fail("missing \"\(key)\"") }
            return ""
        case let other?:
            throw fail("\"\(key)\" must be a string, not \(other.kind)")
        }
    }

    private static func fail(_ message: String) -> SearchError { SearchError(code: .invalidCatalog, message: message) }
}

/// Trims spaces around each segment and drops empty segments: ` Music / Rock/` → `Music/Rock`.
func normalizeCategory(_ path: String) -> String {
    // Most paths are normal already (ASCII, no blanks, no empty segment): checked byte by byte,
    // they skip Foundation's trimming, a tenth of reading a catalog file when every path took it.
    var path = path
    let normal = path.withUTF8 { bytes in
        guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: "/"), last != UInt8(ascii: "/")
        else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte >= 0x80 || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { return false }
            if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "/") { return false }
            previous = byte
        }
        return true
    }
    if normal { return path }
    return path.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(
        separator: "/")
}
