/// Every facet value of a snapshot, numbered once, so that counting facets over thousands of hits
/// adds to integer arrays instead of hashing strings per hit.
///
/// Per document: its type's number, its category and ancestors' numbers, and one
/// (attribute, value) pair per attribute. A value is the label its facet shows: the bucket label
/// for numeric attributes (see ``NumberBuckets``), the text otherwise. The values of one attribute
/// have consecutive numbers, and attributes are numbered in name order.
struct FacetIndex: Sendable {
    /// One (attribute, value) pair of a document.
    struct Pair: Sendable {
        var attribute: Int32
        var value: Int32
    }

    let typeNames: [String]
    let categoryNames: [String]
    let attributeNames: [String]
    /// The label of each value number.
    let valueLabels: [String]
    /// Values of attribute `a` are numbered `valueStart[a]..<valueStart[a + 1]`.
    let valueStart: [Int32]

    /// Each document's type number.
    let typeOf: [Int32]
    /// Document `d`'s category numbers are `categoryIDs[categoryStart[d]..<categoryStart[d + 1]]`.
    let categoryStart: [Int32]
    let categoryIDs: [Int32]
    /// Document `d`'s attribute pairs are `pairs[pairStart[d]..<pairStart[d + 1]]`.
    let pairStart: [Int32]
    let pairs: [Pair]

    /// Numbers the facet values of `entities`.
    ///
    /// - Parameters:
    ///   - entities: The snapshot's entities.
    ///   - categoryPrefixes: Each entity's category and its ancestors.
    ///   - label: The facet label of an attribute value, as the facets show it.
    init(
        entities: [Entity], categoryPrefixes: [[String]],
        label: (_ attribute: String, _ value: AttributeValue) -> String
    ) {
        var typeNumbers = [String: Int32]()
        var categoryNumbers = [String: Int32]()
        var typeNames = [String]()
        var categoryNames = [String]()
        var typeOf = [Int32]()
        typeOf.reserveCapacity(entities.count)
        var categoryStart: [Int32] = [0]
        var categoryIDs = [Int32]()
        // Attribute values are collected by name first, numbered in name order afterwards.
        var labelsByAttribute = [String: [String: Int32]]()
        var rawPairs = [(attribute: String, label: String)]()
        var pairStart: [Int32] = [0]
        for (doc, entity) in entities.enumerated() {
            if let number = typeNumbers[entity.type] {
                typeOf.append(number)
            } else {
                typeNumbers[entity.type] = Int32(typeNames.count)
                typeOf.append(Int32(typeNames.count))
                typeNames.append(entity.type)
            }
            for prefix in categoryPrefixes[doc] {
                if let number = categoryNumbers[prefix] {
                    categoryIDs.append(number)
                } else {
                    categoryNumbers[prefix] = Int32(categoryNames.count)
                    categoryIDs.append(Int32(categoryNames.count))
                    categoryNames.append(prefix)
                }
            }
            categoryStart.append(Int32(categoryIDs.count))
            for (name, value) in entity.attributes {
                let text = label(name, value)
                labelsByAttribute[name, default: [:]][text] = 0
                rawPairs.append((name, text))
            }
            pairStart.append(Int32(rawPairs.count))
        }
        let attributeNames = labelsByAttribute.keys.sorted()
        var attributeNumbers = [String: Int32]()
        var valueLabels = [String]()
        var valueStart = [Int32]()
        for (number, name) in attributeNames.enumerated() {
            attributeNumbers[name] = Int32(number)
            valueStart.append(Int32(valueLabels.count))
            for text in labelsByAttribute[name]!.keys.sorted() {
                labelsByAttribute[name]![text] = Int32(valueLabels.count)
                valueLabels.append(text)
            }
        }
        valueStart.append(Int32(valueLabels.count))
        pairs = rawPairs.map {
            Pair(attribute: attributeNumbers[$0.attribute]!, value: labelsByAttribute[$0.attribute]![$0.label]!)
        }
        self.typeNames = typeNames
        self.categoryNames = categoryNames
        self.attributeNames = attributeNames
        self.valueLabels = valueLabels
        self.valueStart = valueStart
        self.typeOf = typeOf
        self.categoryStart = categoryStart
        self.categoryIDs = categoryIDs
        self.pairStart = pairStart
    }
}
