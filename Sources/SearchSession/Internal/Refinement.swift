internal import Base64Coding

/// A page token: the snapshot (its version and generation), the offset of the next page, and a
/// hash of the refinement that produced it, base64url-encoded.
struct PageToken: Hashable, Sendable {
    var version: UInt64
    var generation: UInt64
    var offset: Int
    var refinementHash: UInt64

    var encoded: String {
        let text = "p2.\(version).\(generation).\(offset).\(String(refinementHash, radix: 16))"
        // Base64Coding, not Foundation: three replacingOccurrences per call cost more than the
        // rest of a small Capture's page (this is on every Capture and Search).
        return Base64.encode(text.utf8, urlSafe: true, padded: false)
    }

    init(version: UInt64, generation: UInt64, offset: Int, refinementHash: UInt64) {
        self.version = version
        self.generation = generation
        self.offset = offset
        self.refinementHash = refinementHash
    }

    /// Reads a token.
    ///
    /// - Throws: ``SearchError/Code/invalidArgument`` for a malformed one;
    ///   ``SearchError/Code/catalogChanged`` for a token of the earlier format (it names no
    ///   generation, so no snapshot can be found for it).
    init(decoding token: String) throws(SearchError) {
        guard token.utf8.count <= 200, let data = Base64.decode(token.utf8) else {
            throw .invalid("malformed page token")
        }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ".")
        if parts.count == 4 && parts[0] == "p1" {
            throw SearchError(
                code: .catalogChanged, message: "the page token is from an earlier version; start again from page 1")
        }
        guard parts.count == 5, parts[0] == "p2", let version = UInt64(parts[1]), let generation = UInt64(parts[2]),
            let offset = Int(parts[3]), offset >= 0, let hash = UInt64(parts[4], radix: 16)
        else { throw .invalid("malformed page token") }
        self.init(version: version, generation: generation, offset: offset, refinementHash: hash)
    }
}

/// FNV-1a over the parts of a refinement that change its hits or their order (page size and
/// token excluded: a later page may use another size, the offset is absolute). Every part is
/// written out field by field, each string with its length, so no two refinements share a text
/// (and no reflection runs on the way: this is on every call's path).
func refinementHash(session: String, _ request: SearchRequest) -> UInt64 {
    var hash = RefinementHasher()
    hash.add(session)
    if let query = request.query {
        hash.add(1 as UInt64)
        hash.add(query)
    } else {
        hash.add(0 as UInt64)
    }
    hash.add(request.disabledLabels.sorted())
    hash.add(request.entityTypes.sorted())
    hash.add(request.categories.map(normalizeCategory).sorted())
    hash.add(UInt64(request.filters.count))
    for filter in request.filters { hash.add(filter) }
    if let expression = request.filterExpression {
        hash.add(1 as UInt64)
        hash.add(expression)
    } else {
        hash.add(0 as UInt64)
    }
    hash.add(request.sort.key.rawValue)
    hash.add(request.sort.attribute)
    hash.add(request.sort.descending ? 1 as UInt64 : 0)
    return hash.value
}

/// FNV-1a, fed field by field.
struct RefinementHasher {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ number: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
    }

    mutating func add(_ text: String) {
        add(UInt64(text.utf8.count))
        for codeUnit in text.utf8 { byte(codeUnit) }
    }

    mutating func add(_ texts: [String]) {
        add(UInt64(texts.count))
        for text in texts { add(text) }
    }

    mutating func add(_ bound: Double?) {
        if let bound { add(1 as UInt64); add(bound.bitPattern) } else { add(0 as UInt64) }
    }

    mutating func add(_ filter: AttributeFilter) {
        add(filter.attribute)
        switch filter.condition {
        case .anyOf(let values):
            add(1 as UInt64)
            add(values)
        case .range(let low, let high):
            add(2 as UInt64)
            add(low)
            add(high)
        }
    }

    mutating func add(_ expression: FilterExpression) {
        switch expression {
        case .filter(let filter):
            add(1 as UInt64)
            add(filter)
        case .all(let children):
            add(2 as UInt64)
            add(UInt64(children.count))
            for child in children { add(child) }
        case .any(let children):
            add(3 as UInt64)
            add(UInt64(children.count))
            for child in children { add(child) }
        case .not(let child):
            add(4 as UInt64)
            add(child)
        }
    }

    private mutating func byte(_ b: UInt8) {
        value ^= UInt64(b)
        value &*= 0x100_0000_01b3
    }
}

extension AttributeFilter {
    func validate() throws(SearchError) {
        if attribute.isEmpty { throw .invalid("a filter needs an attribute name") }
        switch condition {
        case .anyOf(let values):
            if values.isEmpty { throw .invalid("filter on \(attribute) has no values") }
        case .range(let lo, let hi):
            if lo == nil && hi == nil { throw .invalid("range filter on \(attribute) has no bounds") }
            if let lo, !lo.isFinite { throw .invalid("range filter on \(attribute) has a non-finite minimum") }
            if let hi, !hi.isFinite { throw .invalid("range filter on \(attribute) has a non-finite maximum") }
            if let lo, let hi, lo > hi { throw .invalid("range filter on \(attribute) has min \(lo) > max \(hi)") }
        }
    }

    /// Whether an entity satisfies the filter; a missing attribute never does.
    func matches(_ entity: borrowing Entity) -> Bool { matches(attributes: entity.attributes) }

    /// Whether an entity with these attributes satisfies the filter (callers pass an entity's
    /// attributes in place of a copy of the whole entity).
    func matches(attributes: [String: AttributeValue]) -> Bool {
        guard let value = attributes[attribute] else { return false }
        switch (condition, value) {
        case (.anyOf(let values), .string(let text)): return values.contains(text)
        case (.anyOf(let values), .number(let number)): return values.contains { Double($0) == number }
        case (.range(let lo, let hi), .number(let number)):
            return number >= (lo ?? -.infinity) && number <= (hi ?? .infinity)
        case (.range, .string): return false
        }
    }
}

extension FilterExpression {
    func validate(depth: Int = 0) throws(SearchError) {
        if depth > 32 { throw .invalid("filter expression is nested deeper than 32") }
        switch self {
        case .filter(let filter): try filter.validate()
        case .all(let children), .any(let children):
            for child in children { try child.validate(depth: depth + 1) }
        case .not(let child): try child.validate(depth: depth + 1)
        }
    }

    func matches(_ entity: borrowing Entity) -> Bool { matches(attributes: entity.attributes) }

    /// Whether an entity with these attributes satisfies the expression.
    func matches(attributes: [String: AttributeValue]) -> Bool {
        switch self {
        case .filter(let filter): filter.matches(attributes: attributes)
        case .all(let children): children.allSatisfy { $0.matches(attributes: attributes) }
        case .any(let children): children.contains { $0.matches(attributes: attributes) }
        case .not(let child): !child.matches(attributes: attributes)
        }
    }
}

/// Whether `category` is `filter` or one of its descendants.
func categoryMatches(_ category: String, _ filter: String) -> Bool {
    category == filter || (category.hasPrefix(filter) && category.dropFirst(filter.count).first == "/")
}
