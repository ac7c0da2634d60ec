import Testing

@testable import SearchSession

/// The evaluation cache's packed facets: unpacked, exactly the facets that were packed.
@Suite struct PackedFacetsTests {
    static let facets = [
        Facet(
            name: "type", kind: .type,
            values: [
                FacetValue(value: "album", count: 120, selected: false),
                FacetValue(value: "song", count: 7, selected: true),
            ]),
        // No values at all, and values with more left out.
        Facet(name: "colour", kind: .string, values: [], moreValues: 0),
        Facet(
            name: "a category facet whose name is longer than fifteen bytes", kind: .category,
            values: [
                FacetValue(value: "Deutschland/Berlin/Berlin/Prenzlauer Berg/Wohnung", count: 3, selected: true),
                FacetValue(value: "", count: 1, selected: false),
                FacetValue(value: "Ελλάδα/Αθήνα", count: 2, selected: false),
                FacetValue(value: "Küche 🍳", count: 2, selected: true),
            ],
            moreValues: 41),
        Facet(
            name: "price", kind: .number,
            values: [FacetValue(value: "100..199", count: 2_000_000_000, selected: false)], moreValues: 1),
    ]

    @Test func unpackedFacetsEqualThePackedOnes() {
        let packed = PackedFacets(Self.facets)
        #expect(packed.facets == Self.facets)
        #expect(PackedFacets([]).facets.isEmpty)
    }

    @Test func valuesComeBackByPosition() {
        var values = PackedFacetValues()
        let first = values.append(Self.facets[0].values)
        let none = values.append([])
        let second = values.append(Self.facets[2].values)
        #expect(first == 0..<2)
        #expect(none.isEmpty)
        #expect(second == 2..<6)
        #expect(values.values(second) == Self.facets[2].values)
        #expect(values.values(first) == Self.facets[0].values)
        #expect(values.all == Self.facets[0].values + Self.facets[2].values)
    }

    @Test func aValueCostsItsTextAndEightBytesNotAnObject() {
        // A thousand values of 40-byte texts: about 48 KB packed, against 32 bytes of
        // FacetValue plus a heap object of about 72 bytes each unpacked.
        let values = (0..<1000).map {
            FacetValue(value: "Deutschland/Berlin/Berlin/Straße \($0 + 100_000)", count: $0, selected: $0 == 7)
        }
        let packed = PackedFacetValues(values)
        #expect(packed.all == values)
        #expect(packed.bytes < 1000 * 56)
    }

    /// Labels as a snapshot's numbering would give them, and the facets counted in them.
    static let labels = FacetLabels(
        types: ["album", "song"], categories: ["Deutschland", "Deutschland/Berlin"],
        values: (0..<1000).map { "Deutschland/Berlin/Berlin/Straße \($0 + 100_000)" },
        attributes: ["price", "street"] + (0..<40).map { "an attribute name longer than fifteen bytes \($0)" })

    static let numberedFacets = [
        Facet(
            name: "type", kind: .type,
            values: [
                FacetValue(value: "song", count: 7, selected: true, labelNumber: 1),
                FacetValue(value: "album", count: 3, selected: false, labelNumber: 0),
            ]),
        Facet(
            name: "category", kind: .category,
            values: [FacetValue(value: "Deutschland/Berlin", count: 4, selected: false, labelNumber: 1)]),
        // A string attribute whose numbers are counted by their text too: those have no number.
        Facet(
            name: "street", kind: .string,
            values: (0..<1000).map {
                FacetValue(
                    value: labels.values[$0], count: 1000 - $0, selected: $0 == 3, labelNumber: Int32($0))
            } + [FacetValue(value: "42", count: 1, selected: false)]),
        Facet(
            name: "price", kind: .number,
            values: [FacetValue(value: "100..199", count: 5, selected: false, labelNumber: -1)]),
    ]

    @Test func numberedValuesComeBackAsTheirLabelsAndCostEightBytes() {
        let packed = PackedFacets(Self.numberedFacets, labels: Self.labels)
        let unpacked = packed.facets
        #expect(unpacked == Self.numberedFacets)
        // The numbers come back too, so a page cut from the cache packs the same way again.
        let numbers = { (facets: [Facet]) in facets.flatMap { $0.values.map(\.labelNumber) } }
        #expect(numbers(unpacked) == numbers(Self.numberedFacets))
        // 1,005 values: eight bytes each and the two texts kept ("42", "100..199"), against
        // 48 KB with every street's text.
        #expect(packed.bytes < 1_005 * 8 + 1_024)
        #expect(PackedFacets(Self.numberedFacets).bytes > 40 * 1_000)
    }

    @Test func aNumberOutsideItsLabelsKeepsTheText() {
        // A number past the labels, and a number on a bucket facet, which has no labels: each
        // value comes back with its own text.
        let facets = [
            Facet(
                name: "type", kind: .type,
                values: [
                    FacetValue(value: "album", count: 2, selected: false, labelNumber: 9),
                    FacetValue(value: "song", count: 1, selected: false, labelNumber: 1),
                ]),
            Facet(
                name: "price", kind: .number,
                values: [FacetValue(value: "100..199", count: 1, selected: false, labelNumber: 0)]),
        ]
        let packed = PackedFacets(facets, labels: Self.labels)
        #expect(packed.facets == facets)
        #expect(packed.facets.flatMap { $0.values.map(\.value) } == ["album", "song", "100..199"])
        #expect(packed.facets.flatMap { $0.values.map(\.labelNumber) } == [-1, 1, -1])
    }

    @Test func textsBetweenNumberedValuesComeBackByPosition() {
        // Ranges that start with a numbered value, with texts before and after them: each
        // range's first text starts where the last text before the range ended.
        let labels = Self.labels.values
        func numbered(_ n: Int) -> FacetValue {
            FacetValue(value: labels[n], count: n, selected: false, labelNumber: Int32(n))
        }
        func text(_ t: String) -> FacetValue { FacetValue(value: t, count: 1, selected: t == "b") }
        let ranges: [[FacetValue]] = [
            [text("a"), numbered(4)], [numbered(5), text("b"), numbered(6), text("")],
            [numbered(7)], [numbered(8), text("ccc")],
        ]
        var values = PackedFacetValues()
        let positions = ranges.map { values.append($0, labels: labels) }
        for (range, expected) in zip(positions, ranges) {
            #expect(values.values(range, labels: labels) == expected)
        }
        #expect(values.values(0..<values.count, labels: labels) == ranges.flatMap { $0 })
    }

    @Test func attributeFacetsAreNamedByNumberInSixteenBytes() {
        // Forty attribute facets with long names, and "type", which no attribute has: every name
        // comes back, and a header costs sixteen bytes, not its name's object.
        let names = ["type"] + Self.labels.attributes
        let facets = names.enumerated().map { number, name in
            Facet(name: name, kind: number == 0 ? .type : .number, values: [], moreValues: number)
        }
        let packed = PackedFacets(facets, labels: Self.labels)
        #expect(packed.facets == facets)
        #expect(packed.bytes <= facets.count * 16 + 64)
        #expect(PackedFacets(facets).bytes > facets.count * 48)
    }
}
