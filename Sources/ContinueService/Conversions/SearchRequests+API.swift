import SearchAPI
import SearchSession
import WireProtocol

// API requests → search-library requests. Shape problems the library cannot see (an unset enum,
// a oneof without a case) are INVALID_ARGUMENT here, naming the field.

extension SearchSession.Descriptor {
    init(_ message: SearchAPI.Descriptor?) throws(RPCError) {
        guard let message else {
            throw RPCError(code: .invalidArgument, message: "descriptor is required")
        }
        var pixelBuffer: SearchSession.PixelBuffer?
        if let buffer = message.pixelBuffer {
            pixelBuffer = SearchSession.PixelBuffer(
                width: Int(buffer.width), height: Int(buffer.height), bytesPerRow: Int(buffer.bytesPerRow),
                format: try SearchSession.PixelFormat(buffer.format), bytes: buffer.data)
        }
        self.init(
            labels: message.labels.map { SearchSession.Label($0.text, confidence: $0.confidence) },
            pixelBuffer: pixelBuffer,
            featurePrint: message.featurePrint.map { SearchSession.FeaturePrint(model: $0.model, values: $0.values) },
            source: SearchSession.Source(message.source), locale: message.locale)
    }
}

extension SearchSession.PixelFormat {
    init(_ format: SearchAPI.PixelFormat) throws(RPCError) {
        switch format {
        case .bgra8: self = .bgra8
        case .rgba8: self = .rgba8
        case .rgb8: self = .rgb8
        case .gray8: self = .gray8
        case .unspecified, .unrecognized:
            throw RPCError(
                code: .invalidArgument,
                message: "descriptor.pixel_buffer.format must be one of BGRA8, RGBA8, RGB8, GRAY8")
        }
    }
}

extension SearchSession.Source {
    init(_ source: SearchAPI.Source) {
        switch source {
        case .camera: self = .camera
        case .screenshot: self = .screenshot
        case .unspecified, .unrecognized: self = .unspecified
        }
    }
}

extension SearchSession.QueryRequest {
    init(_ message: SearchAPI.QueryRequest) throws(RPCError) {
        self.init(
            descriptor: try SearchSession.Descriptor(message.descriptor), limit: Int(message.limit),
            maxDistance: message.maxDistance)
    }
}

extension SearchSession.SearchRequest {
    init(_ message: SearchAPI.SearchRequest) throws(RPCError) {
        var filters: [SearchSession.AttributeFilter] = []
        for (index, filter) in message.filters.enumerated() {
            filters.append(try SearchSession.AttributeFilter(filter, field: "filters[\(index)]"))
        }
        self.init(
            sessionID: message.sessionID, query: message.query, disabledLabels: message.disabledLabels,
            entityTypes: message.entityTypes, categories: message.categories, filters: filters,
            filterExpression: try message.where.map { expression throws(RPCError) in
                try SearchSession.FilterExpression(expression, field: "where")
            },
            sort: try SearchSession.Sort(message.sort), pageSize: Int(message.pageSize),
            pageToken: message.pageToken, maxFacetValues: Int(message.maxFacetValues),
            maxFacets: Int(message.maxFacets), includedFacets: message.includeFacets)
    }
}

extension SearchSession.AttributeFilter {
    init(_ message: SearchAPI.AttributeFilter, field: String) throws(RPCError) {
        guard !message.attribute.isEmpty else {
            throw RPCError(code: .invalidArgument, message: "\(field).attribute is required")
        }
        switch message.condition {
        case .anyOf(let set):
            self = .anyOf(message.attribute, set.values)
        case .range(let range):
            for bound in [range.min, range.max].compactMap({ $0 }) where !bound.isFinite {
                throw RPCError(code: .invalidArgument, message: "\(field).range bounds must be finite numbers")
            }
            self = .range(message.attribute, min: range.min, max: range.max)
        case nil:
            throw RPCError(code: .invalidArgument, message: "\(field) needs any_of or range")
        }
    }
}

extension SearchSession.FilterExpression {
    init(_ message: SearchAPI.FilterExpression, field: String) throws(RPCError) {
        switch message.node {
        case .filter(let filter):
            self = .filter(try SearchSession.AttributeFilter(filter, field: field + ".filter"))
        case .all(let list):
            self = .all(try Self.children(list, field: field + ".all"))
        case .any(let list):
            self = .any(try Self.children(list, field: field + ".any"))
        case .not(let child):
            self = .not(try SearchSession.FilterExpression(child, field: field + ".not"))
        case nil:
            throw RPCError(code: .invalidArgument, message: "\(field) needs filter, all, any or not")
        }
    }

    private static func children(
        _ list: SearchAPI.FilterList, field: String
    ) throws(RPCError) -> [SearchSession.FilterExpression] {
        var children: [SearchSession.FilterExpression] = []
        for (index, expression) in list.expressions.enumerated() {
            children.append(try SearchSession.FilterExpression(expression, field: "\(field)[\(index)]"))
        }
        return children
    }
}

extension SearchSession.Sort {
    init(_ message: SearchAPI.Sort?) throws(RPCError) {
        guard let message else {
            self = .relevance
            return
        }
        switch message.key {
        case .relevance: self.init(key: .relevance)
        case .title: self.init(key: .title, descending: message.descending)
        case .attribute:
            guard !message.attribute.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "sort.attribute is required to sort by attribute")
            }
            self.init(key: .attribute, attribute: message.attribute, descending: message.descending)
        case .unrecognized(let value):
            throw RPCError(code: .invalidArgument, message: "sort.key \(value) is not a known sort key")
        }
    }
}

extension SearchSession.Entity {
    init(_ message: SearchAPI.Entity) {
        var attributes: [String: SearchSession.AttributeValue] = [:]
        for attribute in message.attributes {
            switch attribute.value {
            case .stringValue(let string): attributes[attribute.name] = .string(string)
            case .numberValue(let number): attributes[attribute.name] = .number(number)
            case nil: break
            }
        }
        var localized: [String: SearchSession.LocalizedText] = [:]
        for text in message.localized {
            localized[text.locale] = SearchSession.LocalizedText(title: text.title, subtitle: text.subtitle)
        }
        self.init(
            type: message.type, id: message.id, title: message.title, subtitle: message.subtitle,
            category: message.category, tags: message.tags, attributes: attributes, imageURL: message.imageURL,
            thumbnailURL: message.thumbnailURL,
            prints: message.prints.map { SearchSession.FeaturePrint(model: $0.model, values: $0.values) },
            related: message.related.map { SearchSession.EntityRef(type: $0.type, id: $0.id) },
            localized: localized, link: message.link)
    }
}
