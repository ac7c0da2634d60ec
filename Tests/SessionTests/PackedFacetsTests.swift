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
        let values = PackedFacetValues(runs: [(Self.facets[0].values, nil), ([], nil), (Self.facets[2].values, nil)])
        #expect(values.count == 6)
        #expect(values.values(2..<6) == Self.facets[2].values)
        #expect(values.values(0..<2) == Self.facets[0].values)
        #expect(values.values(2..<2).isEmpty)
        #expect(values.all == Self.facets[0].values + Self.facets[2].values)
    }

    @Test func aValueCostsItsTextAndItsBitsNotAnObject() {
        // A thousand values of 40-byte texts: about 45 KB packed, against 32 bytes of
        // FacetValue plus a heap object of about 72 bytes each unpacked.
        let values = (0..<1000).map {
            FacetValue(value: "Deutschland/Berlin/Berlin/Straße \($0 + 100_000)", count: $0, selected: $0 == 7)
        }
        let packed = PackedFacetValues(values)
        #expect(packed.all == values)
        #expect(packed.bytes < 1000 * 46)
    }

    @Test func countsAndReferencesTakeTheBitsTheirLargestNeeds() {
        // A thousand values numbered below 1,024 with counts below 1,024 take 11 + 10 bits
        // each; counts up to 2^32 - 1 (at 32 bits) come back whole.
        let labels = (0..<1024).map { "v\($0)" }
        let small = (0..<1000).map {
            FacetValue(value: labels[$0], count: 1023 - $0, selected: false, labelNumber: Int32($0))
        }
        let packed = PackedFacetValues(runs: [(small, .names(labels))])
        #expect(packed.values(0..<1000, labels: .names(labels)) == small)
        #expect(packed.bytes <= (1000 * 21 + 7) / 8 + 2 * 8 + 64)
        let wide = (0..<3).map { n in
            FacetValue(value: "x", count: Int(UInt32.max) - n, selected: n == 2)
        }
        let widest = PackedFacetValues(runs: [(wide, nil)])
        #expect(widest.all.map(\.count) == wide.map(\.count))
        #expect(widest.all.map(\.selected) == [false, false, true])
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

    @Test func numberedValuesComeBackAsTheirLabelsInAFewBytes() {
        let packed = PackedFacets(Self.numberedFacets, labels: Self.labels)
        let unpacked = packed.facets
        #expect(unpacked == Self.numberedFacets)
        // The numbers come back too, so a page cut from the cache packs the same way again.
        let numbers = { (facets: [Facet]) in facets.flatMap { $0.values.map(\.labelNumber) } }
        #expect(numbers(unpacked) == numbers(Self.numberedFacets))
        // 1,005 values: 11 bits of reference and 10 of count each and the two texts kept ("42",
        // "100..199"), against 48 KB with every street's text.
        #expect(packed.bytes < 1_005 * 3 + 1_024)
        #expect(PackedFacets(Self.numberedFacets).bytes > 40 * 1_000)
    }

    @Test func theFacetsLeftOutComeBackByNameAsAttributeNumbers() {
        // Forty long attribute names left out: four bytes each, not a string each; a name the
        // labels do not have keeps its text.
        let left = (0..<40).map { "an attribute name longer than fifteen bytes \($0)" } + ["unnumbered"]
        let packed = PackedFacets(Self.numberedFacets, moreFacets: left, labels: Self.labels)
        #expect(packed.moreFacets == left)
        #expect(packed.facets == Self.numberedFacets)
        let without = PackedFacets(Self.numberedFacets, labels: Self.labels)
        #expect(without.moreFacets.isEmpty)
        #expect(packed.bytes - without.bytes < 41 * 4 + 64)
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
        let values = PackedFacetValues(runs: ranges.map { ($0, .values(labels)) })
        var start = 0
        for expected in ranges {
            #expect(values.values(start..<start + expected.count, labels: .values(labels)) == expected)
            start += expected.count
        }
        #expect(values.values(0..<values.count, labels: .values(labels)) == ranges.flatMap { $0 })
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
