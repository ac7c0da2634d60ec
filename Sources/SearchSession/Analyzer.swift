internal import Foundation

/// Turns labels, query text and catalog fields into index terms, the same way for all three.
///
/// The pipeline is: Unicode compatibility decomposition (so `m²` is `m2`, `ﬁ` is `fi` and
/// full-width letters are ASCII), removal of combining marks (so `é` → `e`), a few letters without
/// a decomposition (`ß` → `ss`, `ø` → `o`, `æ` → `ae`, …), lower-casing, splitting on anything
/// that is not a letter or digit, simple plural stemming (``stem(_:)``), and synonym mapping:
/// every term of a synonym group becomes the group's first term.
///
/// An apostrophe inside a word joins it (`don't` → `dont`), and when three or more letters
/// follow the first one they are a token too: French and Italian elide an article into the word
/// (`l'appartement`, `dell'arte`), and a person looking for `appartement` means those as well;
/// `O'Connor` is found as `connor`.
public struct Analyzer: Sendable {
    /// Terms that are not their synonym group's first term, found by their bytes…
    private var synonymTerms = NameTable()
    /// …and, by their number there, the group's first term.
    private var canonicalTerms: [[UInt8]] = []

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
        for t in parent.keys.sorted() where find(t) != t {
            _ = synonymTerms.number(of: t)
            canonicalTerms.append(Array(find(t).utf8))
        }
    }

    /// The index terms of a text, in order, repeats kept.
    public func terms(_ text: String) -> [String] {
        var text = text
        return text.withUTF8 { termRun(utf8: $0) }.strings
    }

    /// The index terms of UTF-8 text, in order, repeats kept, as one run of bytes: ``terms(_:)``
    /// without a String per term.
    func termRun(utf8 text: UnsafeBufferPointer<UInt8>) -> TermRun {
        let tokens = Self.tokenRun(utf8: text)
        var terms = TermRun()
        terms.bytes.reserveCapacity(tokens.bytes.count + 8)
        terms.ends.reserveCapacity(tokens.count)
        tokens.forEach { token in
            let start = terms.bytes.count
            Self.appendStem(of: token, to: &terms.bytes)
            if !canonicalTerms.isEmpty {
                let synonym = terms.bytes.withUnsafeBufferPointer { bytes in
                    let term = UnsafeBufferPointer(rebasing: bytes[start...])
                    return synonymTerms.number(of: term, hash: NameTable.hash(term))
                }
                if let synonym {
                    terms.bytes.removeSubrange(start...)
                    terms.bytes.append(contentsOf: canonicalTerms[Int(synonym)])
                }
            }
            terms.ends.append(terms.bytes.count)
        }
        return terms
    }

    /// Folded tokens before stemming: lower-case, diacritics removed, split on non-alphanumerics.
    public static func tokens(_ text: String) -> [String] {
        var text = text
        return text.withUTF8 { tokenRun(utf8: $0) }.strings
    }

    /// ``tokens(_:)`` of UTF-8 text as one run of bytes.
    static func tokenRun(utf8 text: UnsafeBufferPointer<UInt8>) -> TermRun {
        if let tabled = ScalarFolds.shared.tokens(ofTabledText: text) { return tabled }
        return foldedTokenRun(String(decoding: text, as: UTF8.self))
    }

    /// ``tokens(_:)`` of text with scalars past the table or of mixed folds, scalar by scalar.
    private static func foldedTokenRun(_ text: String) -> TermRun {
        var tokens = TokenWriter()
        // Scalar by scalar: the decomposition of a string is its scalars' decompositions (then
        // combining marks reordered, and marks are dropped), so each scalar folds on its own,
        // from the table.
        let folds = ScalarFolds.shared
        func add(_ scalar: Unicode.Scalar) {
            let fold = folds.fold(of: scalar)
            if case .mixed = fold {
                for part in ScalarFolds.decomposed(scalar) { tokens.add(ScalarFolds.fold(decomposed: part)) }
            } else {
                tokens.add(fold)
            }
        }
        if text.unicodeScalars.contains(where: { $0.value >= ScalarFolds.tabled }) {
            // Scripts past the table (CJK, Hangul syllables, emoji, full-width forms): the text's
            // canonical decomposition at once (Hangul syllables become tabled jamo), and only the
            // scalars that may still have a compatibility form decomposed one by one.
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
                if ScalarFolds.hasNoCompatibilityForm(scalar) {
                    tokens.add(ScalarFolds.fold(decomposed: scalar))
                } else {
                    add(scalar)
                }
            }
        } else {
            for scalar in text.unicodeScalars { add(scalar) }
        }
        return tokens.finished()
    }

    fileprivate static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d",
        "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ð": "d", "Ð": "d", "ı": "i",
    ]

    /// Simple plural stemming: English irregular plurals first (``irregularPlurals``: `knives` →
    /// `knife`, `children` → `child`, `cookies` → `cookie`), then `-sses` → `-ss`,
    /// `-xes`/`-ches`/`-shes` → drop `-es`, `-ies` → `-y`, otherwise a final `-s` is dropped unless
    /// the word ends in `-ss`, `-us` or `-is`. Other words of three letters or fewer and numbers
    /// are kept as they are.
    public static func stem(_ word: String) -> String {
        var word = word
        var stemmed = [UInt8]()
        word.withUTF8 { appendStem(of: $0, to: &stemmed) }
        return String(decoding: stemmed, as: UTF8.self)
    }

    /// Appends ``stem(_:)`` of UTF-8 `word` to `out`.
    static func appendStem(of word: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if let singular = Irregular.shared.singular(of: word) {
            out.append(contentsOf: singular)
        } else {
            appendRegularStem(of: word, to: &out)
        }
    }

    /// Appends `word` as the suffix rules of ``stem(_:)`` leave it, without the irregular plurals.
    static func appendRegularStem(of u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        // Most words do not end in `s`: they are copied as they are.
        guard u.count > 3, u.last == UInt8(ascii: "s") else {
            out.append(contentsOf: u)
            return
        }
        func ends(_ suffix: StaticString) -> Bool {
            let n = suffix.utf8CodeUnitCount
            guard u.count > n else { return false }
            return suffix.withUTF8Buffer { s in
                for i in 0..<n where u[u.count - n + i] != s[i] { return false }
                return true
            }
        }
        var kept = u.count - 1
        if ends("sses") || ends("xes") || ends("ches") || ends("shes") {
            kept = u.count - 2
        } else if ends("ies") && u.count > 4 {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[..<(u.count - 3)]))
            out.append(UInt8(ascii: "y"))
            return
        } else if ends("ss") || ends("us") || ends("is") {
            kept = u.count
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: u[..<kept]))
    }

    /// English plurals the suffix rules get wrong, with their singulars: `-ves` of `-f`/`-fe`
    /// nouns, `-oes` of `-o` nouns, vowel-changing and `-en` plurals, Latin and Greek ones, `-ses`
    /// of nouns in `-s`, and `-ies` of nouns in `-ie` (the rule would make `cookies` `cooky`, the
    /// singular `cookie`). Words like `leaves` or `lives` are verbs too; either way they fold
    /// with the noun.
    static let irregularPlurals: KeyValuePairs<String, String> = [
        "knives": "knife", "wives": "wife", "lives": "life", "leaves": "leaf", "loaves": "loaf",
        "halves": "half", "shelves": "shelf", "wolves": "wolf", "calves": "calf", "thieves": "thief",
        "scarves": "scarf", "hooves": "hoof", "elves": "elf", "selves": "self", "sheaves": "sheaf",
        "potatoes": "potato", "tomatoes": "tomato", "heroes": "hero", "echoes": "echo", "mangoes": "mango",
        "volcanoes": "volcano", "mosquitoes": "mosquito", "torpedoes": "torpedo", "vetoes": "veto",
        "dominoes": "domino", "buffaloes": "buffalo", "tornadoes": "tornado",
        "men": "man", "women": "woman", "children": "child", "people": "person", "feet": "foot",
        "teeth": "tooth", "geese": "goose", "mice": "mouse", "lice": "louse", "oxen": "ox",
        "cacti": "cactus", "fungi": "fungus", "nuclei": "nucleus", "radii": "radius", "stimuli": "stimulus",
        "criteria": "criterion", "phenomena": "phenomenon", "indices": "index", "matrices": "matrix",
        "vertices": "vertex", "appendices": "appendix", "analyses": "analysis", "crises": "crisis",
        "theses": "thesis", "diagnoses": "diagnosis", "hypotheses": "hypothesis", "oases": "oasis",
        "buses": "bus", "gases": "gas", "lenses": "lens", "bonuses": "bonus", "viruses": "virus",
        "campuses": "campus", "circuses": "circus", "octopuses": "octopus", "statuses": "status",
        "walruses": "walrus", "choruses": "chorus", "geniuses": "genius", "atlases": "atlas",
        "canvases": "canvas", "irises": "iris", "quizzes": "quiz",
        "cookies": "cookie", "movies": "movie", "hoodies": "hoodie", "zombies": "zombie",
        "brownies": "brownie", "calories": "calorie", "smoothies": "smoothie", "rookies": "rookie",
        "selfies": "selfie", "beanies": "beanie", "goalies": "goalie", "pixies": "pixie",
        "prairies": "prairie", "genies": "genie", "aunties": "auntie", "boogies": "boogie",
    ]

    /// ``irregularPlurals`` as a lookup, asked only for words whose first and last letters start
    /// and end some plural of the table (a bit test), so most words cost no hashing.
    private struct Irregular: Sendable {
        static let shared = Irregular()
        private let plurals: NameTable
        /// By a plural's number in `plurals`: its singular.
        private let singulars: [[UInt8]]
        /// Bit `first % 32 * 32 + last % 32` is set when a plural starts with `first` and ends
        /// with `last` (ASCII letters).
        private let ends: [UInt64]

        private init() {
            var plurals = NameTable()
            var singulars = [[UInt8]]()
            var ends = [UInt64](repeating: 0, count: 16)
            for (plural, singular) in Analyzer.irregularPlurals {
                _ = plurals.number(of: plural)
                // The singular as the suffix rules leave it (`lens` → `len`), so both forms agree.
                var stemmed = [UInt8]()
                var singular = singular
                singular.withUTF8 { Analyzer.appendRegularStem(of: $0, to: &stemmed) }
                singulars.append(stemmed)
                let key = Self.key(plural.utf8.first!, plural.utf8.last!)
                ends[key >> 6] |= 1 << UInt64(key & 63)
            }
            self.plurals = plurals
            self.singulars = singulars
            self.ends = ends
        }

        private static func key(_ first: UInt8, _ last: UInt8) -> Int { Int(first & 31) << 5 | Int(last & 31) }

        func singular(of word: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            guard word.count >= 3 && word.count <= 10, let first = word.first, let last = word.last else { return nil }
            let key = Self.key(first, last)
            guard ends[key >> 6] & (1 << UInt64(key & 63)) != 0 else { return nil }
            return plurals.number(of: word, hash: NameTable.hash(word)).map { singulars[Int($0)] }
        }
    }
}

/// Tokens or terms as one run of UTF-8 bytes and where each ends: what analysis makes before
/// (or instead of) a String per term, so a segment builder numbers terms by their bytes.
struct TermRun: Sendable {
    /// The terms' bytes, one after another.
    var bytes: [UInt8] = []
    /// Where each term ends in ``bytes`` (each starts where the one before it ends).
    var ends: [Int] = []

    /// How many terms there are.
    var count: Int { ends.count }

    /// Whether there are none.
    var isEmpty: Bool { ends.isEmpty }

    /// Calls `body` with each term's bytes, in order.
    func forEach(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for end in ends {
                try body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
    }

    /// The terms as Strings.
    var strings: [String] {
        var strings = [String]()
        strings.reserveCapacity(count)
        forEach { strings.append(String(decoding: $0, as: UTF8.self)) }
        return strings
    }

    /// The hash of the terms as a phrase (``Segment/hash(phrase:)``: their bytes with a space
    /// between each two), `nil` when there are none.
    var phraseHash: UInt64? {
        guard !isEmpty else { return nil }
        var hash = NameTable.offsetBasis
        var first = true
        forEach { term in
            if !first { hash = NameTable.continuing(hash, with: UInt8(ascii: " ")) }
            first = false
            hash = NameTable.continuing(hash, with: term)
        }
        return hash
    }
}

/// Tokens as folded scalars make them.
private struct TokenWriter {
    private var run = TermRun()
    /// Where the current token starts in the run's bytes.
    private var start = 0
    /// Where the letters after the current token's first apostrophe start, counted from the
    /// token's start, if it has one.
    private var afterApostrophe: Int?

    /// Letters after an apostrophe that also make a token of their own (`l'eau` → `eau`).
    static let elidedWordLength = 3

    mutating func add(letter: UInt8) { run.bytes.append(letter) }

    mutating func add(letters: UnsafeBufferPointer<UInt8>) { run.bytes.append(contentsOf: letters) }

    mutating func add(_ fold: ScalarFolds.Fold) {
        switch fold {
        case .skip, .mixed: return
        case .letters(let bytes): run.bytes.append(contentsOf: bytes)
        case .apostrophe:
            let length = run.bytes.count - start
            if length > 0 && afterApostrophe == nil { afterApostrophe = length }
        case .separator:
            let end = run.bytes.count
            guard end > start else { return }
            run.ends.append(end)
            if let offset = afterApostrophe, end - start - offset >= Self.elidedWordLength {
                for index in (start + offset)..<end { run.bytes.append(run.bytes[index]) }
                run.ends.append(run.bytes.count)
            }
            start = run.bytes.count
            afterApostrophe = nil
        }
    }

    mutating func finished() -> TermRun {
        add(.separator)
        return run
    }
}

/// How each scalar folds into tokens, tabled for the scalars below U+3100 (Latin, Greek,
/// Cyrillic, Hebrew, Arabic, the Indic scripts, Hangul jamo, punctuation, CJK punctuation,
/// hiragana and katakana): asking Unicode's property tables and decomposing per scalar costs
/// about a hundred times a table read, and a catalog in a language with diacritics is mostly
/// such scalars.
struct ScalarFolds: Sendable {
    /// What one scalar adds to the tokens.
    enum Fold {
        /// Nothing (a combining mark).
        case skip
        /// An apostrophe: nothing, but the letters after it may be a token too.
        case apostrophe
        /// A break between tokens.
        case separator
        /// These bytes (UTF-8, folded and lower-cased) to the current token.
        case letters(ArraySlice<UInt8>)
        /// Letters and breaks both: fold its decomposition's scalars one by one.
        case mixed
    }

    static let shared = ScalarFolds()
    static let tabled = 0x3100

    /// Per tabled scalar: where its bytes start in `bytes` (and end, at the next one's start),
    /// and its kind: 0 letters, 1 skip, 2 separator, 3 mixed, 4 apostrophe.
    private let start: [UInt32]
    private let kind: [UInt8]
    private let bytes: [UInt8]

    private init() {
        var start = [UInt32]()
        var kind = [UInt8]()
        var bytes = [UInt8]()
        start.reserveCapacity(Self.tabled + 1)
        kind.reserveCapacity(Self.tabled)
        for value in 0..<UInt32(Self.tabled) {
            start.append(UInt32(bytes.count))
            guard let scalar = Unicode.Scalar(value) else {
                kind.append(2)  // surrogates: never in a String
                continue
            }
            var letters = [UInt8]()
            var separators = 0
            var apostrophes = 0
            for part in Self.decomposed(scalar) {
                switch Self.fold(decomposed: part) {
                case .letters(let folded): letters += folded
                case .separator: separators += 1
                case .apostrophe: apostrophes += 1
                case .skip, .mixed: continue
                }
            }
            switch (letters.isEmpty, separators, apostrophes) {
            case (true, 0, 0): kind.append(1)
            case (true, 0, _): kind.append(4)
            case (true, _, _): kind.append(2)
            case (false, 0, 0):
                kind.append(0)
                bytes += letters
            case (false, _, _): kind.append(3)
            }
        }
        start.append(UInt32(bytes.count))
        self.start = start
        self.kind = kind
        self.bytes = bytes
    }

    /// How `scalar` folds (`.mixed` past the table).
    @inline(__always) func fold(of scalar: Unicode.Scalar) -> Fold {
        let value = Int(scalar.value)
        guard value < Self.tabled else { return .mixed }
        switch kind[value] {
        case 0: return .letters(bytes[Int(start[value])..<Int(start[value + 1])])
        case 1: return .skip
        case 4: return .apostrophe
        case 2: return .separator
        default: return .mixed
        }
    }

    /// The tokens of UTF-8 text whose scalars are all tabled and none `.mixed`, or unified
    /// ideographs of the Basic Multilingual Plane, or `nil` for any other text (the caller folds
    /// it scalar by scalar). An ideograph is a letter of its own, as it folds (see
    /// ``hasNoCompatibilityForm(_:)``): a Japanese job title is kana and ideographs, and folding
    /// it through Foundation's decomposition was a sixth of an upsert into jobs-100k.
    ///
    /// The same folds as ``fold(of:)``, decoded from the bytes and read from the tables in
    /// place: a `Fold` per scalar held the table's bytes as a slice, and retaining and releasing
    /// it was a third of analysing a catalog's accented text (analysis was a quarter of an
    /// upsert of 100 archive entities). ASCII (most catalog fields) folds without the tables.
    func tokens(ofTabledText text: UnsafeBufferPointer<UInt8>) -> TermRun? {
        var tokens = TokenWriter()
        return kind.withUnsafeBufferPointer { kind in
            start.withUnsafeBufferPointer { start in
                bytes.withUnsafeBufferPointer { folded -> TermRun? in
                    var position = 0
                    while position < text.count {
                        // A String's bytes are valid UTF-8: a lead byte says how many follow.
                        let lead = text[position]
                        let value: Int
                        if lead < 0x80 {
                            switch lead {
                            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                                tokens.add(letter: lead)
                            case UInt8(ascii: "A")...UInt8(ascii: "Z"): tokens.add(letter: lead + 32)
                            case UInt8(ascii: "'"): tokens.add(.apostrophe)
                            default: tokens.add(.separator)
                            }
                            position += 1
                            continue
                        } else if lead < 0xE0 {
                            value = Int(lead & 0x1F) << 6 | Int(text[position + 1] & 0x3F)
                            position += 2
                        } else if lead < 0xF0 {
                            value =
                                Int(lead & 0x0F) << 12 | Int(text[position + 1] & 0x3F) << 6
                                | Int(text[position + 2] & 0x3F)
                            position += 3
                        } else {
                            return nil
                        }
                        guard value < Self.tabled else {
                            guard let scalar = Unicode.Scalar(UInt32(value)), Self.hasNoCompatibilityForm(scalar) else {
                                return nil
                            }
                            tokens.add(letters: UnsafeBufferPointer(rebasing: text[(position - 3)..<position]))
                            continue
                        }
                        switch kind[value] {
                        case 0:
                            tokens.add(
                                letters: UnsafeBufferPointer(
                                    rebasing: folded[Int(start[value])..<Int(start[value + 1])]))
                        case 1: continue
                        case 2: tokens.add(.separator)
                        case 4: tokens.add(.apostrophe)
                        default: return nil
                        }
                    }
                    return tokens.finished()
                }
            }
        }
    }

    /// The scalars of `scalar`'s compatibility decomposition, except for vulgar fractions: `½`
    /// would become digits around a fraction slash, and `2½` the tokens `21` and `2`.
    static func decomposed(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        if scalar.value < 0x80 { return String(scalar).unicodeScalars }
        let compatible = String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars
        return compatible.contains("\u{2044}")
            ? String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars : compatible
    }

    /// Whether a scalar past the table is sure to be its own compatibility decomposition: the
    /// unified ideographs, most of a CJK text, fold without asking Foundation one by one.
    static func hasNoCompatibilityForm(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0x20000...0x2A6DF: return true
        default: return false
        }
    }

    /// How one scalar of decomposed text folds, from Unicode's tables: combining marks add
    /// nothing, apostrophes join, letters and digits add their lower case (or ``Analyzer``'s
    /// spelling of the special letters), anything else breaks the token.
    static func fold(decomposed part: Unicode.Scalar) -> Fold {
        let p = part.properties
        if p.generalCategory == .nonspacingMark || p.generalCategory == .enclosingMark
            || p.generalCategory == .spacingMark
        {
            return .skip
        }
        if part == "'" || part == "\u{2019}" { return .apostrophe }
        if p.isAlphabetic || p.numericType != nil {
            return .letters(ArraySlice((Analyzer.special[part] ?? p.lowercaseMapping).utf8))
        }
        return .separator
    }
}
