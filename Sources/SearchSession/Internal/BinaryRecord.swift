/// Appends a binary record's fields (the catalog log's changes, stored sessions): LEB128 varint
/// counts and lengths, UTF-8 strings after their length, numbers little-endian.
struct RecordWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func count(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func little<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Reads a binary record's fields, failing with the record's name on bytes that end early or do
/// not fit the form.
struct RecordReader<Bytes: Collection<UInt8>> {
    let bytes: Bytes
    let what: String
    var offset = 0

    init(_ bytes: Bytes, what: String) {
        self.bytes = bytes
        self.what = what
    }

    func failure(_ problem: String) -> SearchError {
        SearchError(code: .storage, message: "\(what) is unreadable: it \(problem)")
    }

    private func index(_ at: Int) -> Bytes.Index { bytes.index(bytes.startIndex, offsetBy: at) }

    mutating func byte() throws(SearchError) -> UInt8 {
        guard offset < bytes.count else { throw failure("ends early") }
        defer { offset += 1 }
        return bytes[index(offset)]
    }

    mutating func count() throws(SearchError) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 63 else { throw failure("has a count too large") }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { break }
            shift += 7
        }
        guard value <= UInt64(bytes.count) else { throw failure("has a count larger than the record") }
        return Int(value)
    }

    mutating func slice(_ length: Int) throws(SearchError) -> Bytes.SubSequence {
        guard length <= bytes.count - offset else { throw failure("ends early") }
        defer { offset += length }
        return bytes[index(offset)..<index(offset + length)]
    }

    mutating func string() throws(SearchError) -> String {
        String(decoding: try slice(try count()), as: UTF8.self)
    }

    mutating func little<T: FixedWidthInteger>() throws(SearchError) -> T {
        var value: T = 0
        for shift in 0..<MemoryLayout<T>.size { value |= T(try byte()) << (shift * 8) }
        return value
    }

    /// A byte that says whether an optional value follows: 0 or 1.
    mutating func flag() throws(SearchError) -> Bool {
        switch try byte() {
        case 0: false
        case 1: true
        case let other: throw failure("has \(other) where 0 or 1 says whether a value follows")
        }
    }

    func expectEnd() throws(SearchError) {
        if offset != bytes.count { throw failure("has \(bytes.count - offset) bytes past its end") }
    }
}
