import Foundation
import SearchAPI
import SearchSession

/// Reads a JSON Lines catalog for `catalog import|upsert`, keeping each entity's line number so
/// that errors the server reports by position can be told by line.
///
/// Each line goes through the catalog loader on its own (with `image_file` paths relative to the
/// file), so the file means exactly what `serve --catalog` would make of it.
struct CatalogFileReader {
    /// An entity to send, with the line it came from.
    struct Item {
        var line: Int
        var entity: SearchAPI.Entity
    }

    /// The entities in file order.
    var items: [Item] = []
    /// A line that could not be read, with the reason.
    struct LineError {
        var line: Int
        var reason: String
    }

    /// Lines that could not be read.
    var errors: [LineError] = []
    /// Synonym lines: part of a catalog file, but not of the entity API.
    var skippedSynonymLines: [Int] = []

    /// Reads `path`, or standard input for `-`.
    ///
    /// - Throws: ``CommandFailure`` (usage) when the file cannot be read at all.
    init(path: String) throws(CommandFailure) {
        let bytes: [UInt8]
        let directory: String
        if path == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
            directory = FileManager.default.currentDirectoryPath
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .usage("cannot read catalog file \(path)")
            }
            bytes = Array(data)
            let parent = (path as NSString).deletingLastPathComponent
            directory = parent.isEmpty ? FileManager.default.currentDirectoryPath : parent
        }
        var start = 0
        var number = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            number += 1
            let line = Array(bytes[start..<end])
            start = end + 1
            let parsed = CatalogLoader.parse(line, baseDirectory: directory)
            for error in parsed.errors { errors.append(LineError(line: number, reason: error.reason)) }
            if !parsed.synonyms.isEmpty { skippedSynonymLines.append(number) }
            for entity in parsed.entities { items.append(Item(line: number, entity: SearchAPI.Entity(entity))) }
        }
    }
}

extension SearchAPI.Entity {
    /// The API form of a catalog entity; attributes and locales in name order so requests are
    /// the same every time.
    init(_ entity: SearchSession.Entity) {
        let attributes = entity.attributes.keys.sorted().map { name -> SearchAPI.Attribute in
            switch entity.attributes[name] {
            case .number(let number): SearchAPI.Attribute(name: name, value: .numberValue(number))
            case .string(let string): SearchAPI.Attribute(name: name, value: .stringValue(string))
            case nil: SearchAPI.Attribute(name: name)
            }
        }
        self.init(
            type: entity.type, id: entity.id, title: entity.title, subtitle: entity.subtitle,
            category: entity.category, tags: entity.tags, attributes: attributes, imageURL: entity.imageURL,
            thumbnailURL: entity.thumbnailURL,
            prints: entity.prints.map { SearchAPI.FeaturePrint(model: $0.model, values: $0.values) },
            related: entity.related.map { SearchAPI.EntityRef(type: $0.type, id: $0.id) },
            localized: entity.localized.keys.sorted().map { locale in
                SearchAPI.LocalizedText(
                    locale: locale, title: entity.localized[locale]?.title ?? "",
                    subtitle: entity.localized[locale]?.subtitle ?? "")
            },
            link: entity.link)
    }
}
