/// Load-time conflict detection: two routes of equal rank that can match one URL.

/// A value both types accept, if one exists.
///
/// Candidates cover every non-empty intersection: an enum's values (an enum is finite), and one
/// representative of each other kind.
func commonValue(_ a: ParameterType, _ b: ParameterType) -> String? {
    if a.rankClass >= 2 && b.rankClass >= 2 { return "x" }
    let candidates = a.values + b.values + ["1", "a", "00000000-0000-0000-0000-000000000000", "x"]
    return candidates.first { a.accepts($0) && b.accepts($0) }
}

/// Decoded path segments that both patterns match, or `nil` when no path matches both.
///
/// The patterns must have the same rank vector (so the same length, and the same class at each
/// position).
func commonPath(_ a: [PatternSegment], _ b: [PatternSegment]) -> [String]? {
    guard a.count == b.count else { return nil }
    var example: [String] = []
    for (left, right) in zip(a, b) {
        switch (left, right) {
        case (.literal(let x), .literal(let y)):
            guard x == y else { return nil }
            example.append(x)
        case (.parameter(_, let x), .parameter(_, let y)):
            guard let value = commonValue(x, y) else { return nil }
            example.append(value)
        default:
            return nil
        }
    }
    return example
}

/// The first pair of routes (indices into `drafts`) with equal rank vectors that can match one
/// path, with an example path both match.
func findConflict(_ drafts: [RouteDraft]) -> (first: Int, second: Int, example: [String])? {
    var groups: [[UInt8]: [Int]] = [:]
    for (index, draft) in drafts.enumerated() { groups[draft.rank, default: []].append(index) }
    var found: (first: Int, second: Int, example: [String])? = nil
    for (_, members) in groups where members.count > 1 {
        for i in 0..<members.count {
            for j in (i + 1)..<members.count {
                guard let example = commonPath(drafts[members[i]].segments, drafts[members[j]].segments) else {
                    continue
                }
                // Report the earliest pair in precedence order, whatever the dictionary order.
                if found == nil || (members[i], members[j]) < (found!.first, found!.second) {
                    found = (members[i], members[j], example)
                }
            }
        }
    }
    return found
}
