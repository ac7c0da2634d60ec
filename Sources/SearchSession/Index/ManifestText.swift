internal import JSONReading

extension IndexDirectory.Manifest {
    /// The manifest as JSON text, as `JSONEncoder` writes it (read back with `JSONDecoder`).
    ///
    /// Written by hand: the manifest lists every deleted document of every segment, and
    /// `JSONEncoder` (a value per number, then the text) took 40 ms or more of each checkpoint
    /// at 1M entities after a few hundred upserts of replaced ones — a quarter of the server's
    /// CPU under a stream of writes.
    func jsonText() -> [UInt8] {
        var text = JSONText()
        text.append("{\"format\":")
        text.append(format)
        text.append(",\"baseline\":")
        text.append(string: baseline)
        if let baselineStamp {
            text.append(",\"baselineStamp\":{\"device\":")
            text.append(baselineStamp.device)
            text.append(",\"inode\":")
            text.append(baselineStamp.inode)
            text.append(",\"size\":")
            text.append(baselineStamp.size)
            text.append(",\"modifiedNs\":")
            text.append(baselineStamp.modifiedNs)
            text.append(",\"changedNs\":")
            text.append(baselineStamp.changedNs)
            text.append("}")
        }
        text.append(",\"synonyms\":[")
        for (index, group) in synonyms.enumerated() {
            text.append(index == 0 ? "[" : ",[")
            for (position, word) in group.enumerated() {
                if position > 0 { text.append(",") }
                text.append(string: word)
            }
            text.append("]")
        }
        text.append("],\"version\":")
        text.append(version)
        text.append(",\"segments\":[")
        for (index, entry) in segments.enumerated() {
            text.append(index == 0 ? "{\"file\":" : ",{\"file\":")
            text.append(string: entry.file)
            text.append(",\"deleted\":[")
            for (position, doc) in entry.deleted.enumerated() {
                if position > 0 { text.append(",") }
                text.append(doc)
            }
            text.append("]}")
        }
        text.append("],\"badLines\":[")
        for (index, error) in badLines.enumerated() {
            text.append(index == 0 ? "{\"line\":" : ",{\"line\":")
            text.append(error.line)
            text.append(",\"reason\":")
            text.append(string: error.reason)
            text.append("}")
        }
        text.append("]}")
        return text.bytes
    }
}

/// JSON text being written: punctuation, integers and strings.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    /// Appends punctuation and keys as they are.
    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends an integer in decimal (its description: a document number's is a small String,
    /// held inline, no allocation).
    mutating func append(_ number: some BinaryInteger) {
        bytes.append(contentsOf: number.description.utf8)
    }

    /// Appends a string as a JSON string literal (``JSONStringLiteral``).
    mutating func append(string: String) { JSONStringLiteral.append(string, to: &bytes) }
}
