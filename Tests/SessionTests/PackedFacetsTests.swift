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
}
