import SearchAPI
import Testing

/// Random damage to valid messages: decoding must either succeed or throw, never crash, and every
/// rejection must come from the validator rather than from protobuf-c itself, which would mean the
/// two disagree about what is well-formed.
@Suite struct MutationTests {
    /// SplitMix64, so that failures reproduce.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func mutate(_ bytes: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = bytes
        for _ in 0...Int.random(in: 0...3, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 2: bytes.removeSubrange(index...)
            case 3: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
            default: bytes.remove(at: index)
            }
        }
        return bytes
    }

    static func check<M: ProtoMessage>(_ message: M, seed: UInt64, rounds: Int) throws -> (accepted: Int, rejected: Int)
    {
        var random = Random(state: seed)
        let original = message.serializedBytes()
        var accepted = 0
        var rejected = 0
        for _ in 0..<rounds {
            let bytes = mutate(original, &random)
            do {
                let decoded = try M(serializedBytes: bytes)
                accepted += 1
                // Whatever was accepted must encode and decode to itself (compared as bytes:
                // damaged floats may be NaN, which is never equal to itself).
                let encoded = decoded.serializedBytes()
                let again = try M(serializedBytes: encoded)
                #expect(again.serializedBytes() == encoded)
            } catch {
                rejected += 1
                #expect(error.message != "protobuf-c rejected the message", "\(bytes)")
            }
        }
        return (accepted, rejected)
    }

    @Test func damagedSearchStatesNeverCrash() throws {
        let state = SearchState(
            sessionID: "s-1",
            queryText: "Gitarre ü",
            chips: [Chip(text: "red", selected: true, confidence: 0.5)],
            facets: [Facet(name: "year", kind: .number, values: [FacetValue(value: "1990", count: 3)])],
            appliedFilters: [
                AppliedFilter(filter: AttributeFilter(attribute: "y", condition: .range(NumberRange(min: 1))))
            ],
            results: [RoundTripTests.queryResult],
            totalHits: 300,
            expiresAtUnixMs: -1,
            sort: Sort(key: .title),
            locale: "de")
        let (accepted, rejected) = try Self.check(state, seed: 1, rounds: 3000)
        #expect(accepted > 0 && rejected > 0)
    }

    @Test func damagedSearchRequestsNeverCrash() throws {
        let request = RoundTripTests.search.compactMap { $0.message as? SearchRequest }.first!
        let (accepted, rejected) = try Self.check(request, seed: 2, rounds: 3000)
        #expect(accepted > 0 && rejected > 0)
    }

    @Test func damagedEntitiesNeverCrash() throws {
        let (accepted, rejected) = try Self.check(
            UpsertEntitiesRequest(entities: [RoundTripTests.entity]), seed: 3, rounds: 3000)
        #expect(accepted > 0 && rejected > 0)
    }
}
