/// Points at one catalog entity; also the open-intent target of a tap.
public struct EntityRef: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The entity type, e.g. `album`.
    public var type: String
    /// The id, unique within its type, e.g. `abbey-road`.
    public var id: String

    /// Creates a reference.
    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }

    public static func < (a: EntityRef, b: EntityRef) -> Bool { (a.type, a.id) < (b.type, b.id) }
    public var description: String { "\(type)/\(id)" }
}

/// An attribute value: a string or a number.
public enum AttributeValue: Hashable, Sendable, CustomStringConvertible {
    /// A string value, compared exactly.
    case string(String)
    /// A numeric value, compared as a number.
    case number(Double)

    /// The numeric value, if this is a number.
    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var description: String {
        switch self {
        case .string(let text): text
        case .number(let value): formatNumber(value)
        }
    }
}

/// Formats a number without a trailing `.0` for integral values.
func formatNumber(_ value: Double) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// A feature vector computed by a named model.
public struct FeaturePrint: Hashable, Sendable, Codable {
    /// The model that computed the print; prints are compared only with prints of the same model.
    public var model: String
    /// The vector.
    public var values: [Float]

    /// Creates a print.
    public init(model: String, values: [Float]) {
        self.model = model
        self.values = values
    }
}

/// Title and subtitle in one locale.
public struct LocalizedText: Hashable, Sendable {
    /// The title in that locale.
    public var title: String
    /// The subtitle in that locale.
    public var subtitle: String

    /// Creates a localized text.
    public init(title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
    }
}

/// One catalog entity, as loaded from the catalog file or sent in an upsert batch.
public struct Entity: Hashable, Sendable {
    /// The entity type, e.g. `album`.
    public var type: String
    /// The id, unique within the type.
    public var id: String
    /// The default-locale title.
    public var title: String
    /// The default-locale subtitle.
    public var subtitle: String
    /// The category path, e.g. `Music/Rock`; empty when uncategorised.
    public var category: String
    /// Tags, matched like labels.
    public var tags: [String]
    /// Attributes to filter, facet and sort by.
    public var attributes: [String: AttributeValue]
    /// Full-size image URL.
    public var imageURL: String
    /// Thumbnail image URL.
    public var thumbnailURL: String
    /// Feature prints, at most one per model (the built-in print is added at load from `image_file`).
    public var prints: [FeaturePrint]
    /// Related entities, e.g. an album's artist, an artist's concerts.
    public var related: [EntityRef]
    /// Titles and subtitles by locale (`de`, `de-AT`, …).
    public var localized: [String: LocalizedText]
    /// The catalog's own deep link.
    public var link: String
    /// The keypoints of its picture, found at load from `image_file` (with the built-in print),
    /// for verifying an image match by its geometry. Not part of the catalog log: an entity
    /// written through the API brings a print, never pixels.
    var localFeatures: LocalFeatures?

    // Everything but the local features goes into the catalog log.
    private enum CodingKeys: String, CodingKey {
        case type, id, title, subtitle, category, tags, attributes, imageURL, thumbnailURL, prints, related, localized,
            link
    }

    /// The reference to this entity.
    public var ref: EntityRef { EntityRef(type: type, id: id) }

    /// Creates an entity.
    public init(
        type: String, id: String, title: String, subtitle: String = "", category: String = "",
        tags: [String] = [], attributes: [String: AttributeValue] = [:], imageURL: String = "",
        thumbnailURL: String = "", prints: [FeaturePrint] = [], related: [EntityRef] = [],
        localized: [String: LocalizedText] = [:], link: String = ""
    ) {
        self.type = type
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.category = category
        self.tags = tags
        self.attributes = attributes
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
        self.prints = prints
        self.related = related
        self.localized = localized
        self.link = link
    }

    /// The title and subtitle to show in `locale`: an exact match (`de-AT`), then its language
    /// (`de`), then the default.
    public func display(locale: String) -> LocalizedText {
        // Most entities and requests have no locale to look up: skip building the key.
        if locale.isEmpty || localized.isEmpty { return LocalizedText(title: title, subtitle: subtitle) }
        let key = locale.replacingUnderscores()
        if !key.isEmpty {
            if let exact = localized[key] { return exact.filled(from: self) }
            let lower = key.lowercased()
            if let hit = localized.first(where: { $0.key.lowercased() == lower }) {
                return hit.value.filled(from: self)
            }
            let language = String(lower.split(separator: "-").first ?? "")
            if let hit = localized.first(where: { $0.key.lowercased() == language }) {
                return hit.value.filled(from: self)
            }
        }
        return LocalizedText(title: title, subtitle: subtitle)
    }

    /// Checks what every entity needs.
    func validate() throws(SearchError) {
        if type.isEmpty { throw .init(code: .invalidCatalog, message: "missing \"type\"") }
        if id.isEmpty { throw .init(code: .invalidCatalog, message: "missing \"id\"") }
        if title.isEmpty { throw .init(code: .invalidCatalog, message: "missing \"title\"") }
        var models = Set<String>()
        for print in prints {
            if print.model.isEmpty { throw .init(code: .invalidCatalog, message: "a print without \"model\"") }
            if print.values.isEmpty {
                throw .init(code: .invalidCatalog, message: "print \(print.model) has no values")
            }
            if print.values.contains(where: { !$0.isFinite }) {
                throw .init(code: .invalidCatalog, message: "print \(print.model) has a non-finite value")
            }
            if !models.insert(print.model).inserted {
                throw .init(code: .invalidCatalog, message: "two prints of model \(print.model)")
            }
        }
        for (name, value) in attributes {
            if case .number(let number) = value, !number.isFinite {
                throw .init(code: .invalidCatalog, message: "attribute \(name) is not a finite number")
            }
        }
    }
}

extension LocalizedText {
    fileprivate func filled(from e: Entity) -> LocalizedText {
        LocalizedText(title: title.isEmpty ? e.title : title, subtitle: subtitle.isEmpty ? e.subtitle : subtitle)
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}

// Codable for the catalog log (``CatalogChange``); synthesized, so declared beside the types.
extension Entity: Codable {}
extension EntityRef: Codable {}
extension AttributeValue: Codable {}
extension LocalizedText: Codable {}
