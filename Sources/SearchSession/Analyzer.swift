internal import Foundation

/// Turns labels, query text and catalog fields into index terms, the same way for all three.
///
/// The pipeline is: Unicode canonical decomposition, removal of combining marks (so `é` → `e`),
/// a few letters without a decomposition (`ß` → `ss`, `ø` → `o`, `æ` → `ae`, …), lower-casing,
/// splitting on anything that is not a letter or digit (apostrophes are dropped, so `don't` is
/// one token), simple plural stemming (``stem(_:)``), and synonym mapping: every term of a
/// synonym group becomes the group's first term.
public struct Analyzer: Sendable {
    private var canonical: [String: String] = [:]

    /// Creates an analyzer.
    ///
    /// - Parameter synonyms: Groups of equivalent single-word terms; groups that share a term are
    ///   merged. Terms that analyze to several words are ignored.
    public init(synonyms: [[String]] = []) {
        var parent = [String: String]()
        func find(_ t: String) -> String {
            var t = t
            while let p = parent[t], p != t { t = p }
            return t
        }
        for group in synonyms {
            let terms = group.compactMap { word -> String? in
                let parts = Analyzer.tokens(word).map(Analyzer.stem)
                return parts.count == 1 ? parts[0] : nil
            }
            guard let first = terms.first else { continue }
            for t in terms where parent[t] == nil { parent[t] = t }
            let root = find(first)
            for t in terms.dropFirst() {
                let r = find(t)
                if r != root { parent[r] = root }
            }
        }
        for t in parent.keys where find(t) != t { canonical[t] = find(t) }
    }

    /// The index terms of a text, in order, repeats kept.
    public func terms(_ text: String) -> [String] {
        Self.tokens(text).map { token in
            let s = Self.stem(token)
            return canonical[s] ?? s
        }
    }

    /// Folded tokens before stemming: lower-case, diacritics removed, split on non-alphanumerics.
    public static func tokens(_ text: String) -> [String] {
        if let ascii = asciiTokens(text) { return ascii }
        var out = [String]()
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty { out.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.decomposedScalars() {
            let p = scalar.properties
            if p.generalCategory == .nonspacingMark || p.generalCategory == .enclosingMark
                || p.generalCategory == .spacingMark
            {
                continue
            }
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if p.isAlphabetic || p.numericType != nil {
                if let replacement = Self.special[scalar] {
                    current.append(contentsOf: replacement.unicodeScalars)
                } else {
                    current.append(contentsOf: p.lowercaseMapping.unicodeScalars)
                }
            } else {
                flush()
            }
        }
        flush()
        return out
    }

    /// The fast path for ASCII text (most catalog fields): bytes, no Unicode tables.
    private static func asciiTokens(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var out = [String]()
            var current = [UInt8]()
            current.reserveCapacity(16)
            for b in bytes {
                if b >= 0x80 { return nil }
                switch b {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): current.append(b)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): current.append(b + 32)
                case UInt8(ascii: "'"): continue
                default:
                    if !current.isEmpty {
                        out.append(String(decoding: current, as: UTF8.self))
                        current.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !current.isEmpty { out.append(String(decoding: current, as: UTF8.self)) }
            return out
        }
    }

    private static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d",
        "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ı": "i",
    ]

    /// Simple plural stemming: `-sses` → `-ss`, `-xes`/`-ches`/`-shes` → drop `-es`, `-ies` → `-y`,
    /// otherwise a final `-s` is dropped unless the word ends in `-ss`, `-us` or `-is`. Words of
    /// three letters or fewer and numbers are kept as they are.
    public static func stem(_ word: String) -> String {
        let u = Array(word.utf8)
        guard u.count > 3, let last = u.last, last == UInt8(ascii: "s") else { return word }
        func ends(_ suffix: StaticString) -> Bool {
            let n = suffix.utf8CodeUnitCount
            guard u.count > n else { return false }
            return suffix.withUTF8Buffer { s in
                for i in 0..<n where u[u.count - n + i] != s[i] { return false }
                return true
            }
        }
        if ends("sses") { return String(decoding: u.dropLast(2), as: UTF8.self) }
        if ends("ies") && u.count > 4 { return String(decoding: u.dropLast(3), as: UTF8.self) + "y" }
        if ends("xes") || ends("ches") || ends("shes") { return String(decoding: u.dropLast(2), as: UTF8.self) }
        if ends("ss") || ends("us") || ends("is") { return word }
        return String(decoding: u.dropLast(), as: UTF8.self)
    }
}

extension String {
    /// The canonical decomposition (NFD) of the string's scalars.
    fileprivate func decomposedScalars() -> String.UnicodeScalarView {
        if utf8.allSatisfy({ $0 < 0x80 }) { return unicodeScalars }
        return decomposedStringWithCanonicalMapping.unicodeScalars
    }
}
