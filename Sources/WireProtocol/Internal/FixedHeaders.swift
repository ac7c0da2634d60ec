internal import CNghttp2

/// Header fields encoded once, with their `nghttp2_nv` array, and submitted for many responses:
/// the headers and trailers most successful calls share, so answering them builds nothing.
final class FixedHeaders: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// The fields, pointing into `bytes`; nghttp2 only reads them.
    let fields: UnsafeMutableBufferPointer<nghttp2_nv>
    /// The fields as given, for a block that must add more.
    let pairs: [(name: String, value: String)]

    init(_ pairs: [(name: String, value: String)]) {
        self.pairs = pairs
        let total = pairs.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        bytes = .allocate(capacity: max(1, total))
        fields = .allocate(capacity: max(1, pairs.count))
        var offset = 0
        for (index, (name, value)) in pairs.enumerated() {
            let start = bytes.baseAddress! + offset
            let nameCount = bytes[offset...].initialize(from: name.utf8).1 - offset
            offset += nameCount
            let valueCount = bytes[offset...].initialize(from: value.utf8).1 - offset
            offset += valueCount
            (fields.baseAddress! + index).initialize(
                to: nghttp2_nv(
                    name: start, value: start + nameCount, namelen: nameCount, valuelen: valueCount,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
    }

    deinit {
        bytes.deallocate()
        fields.deallocate()
    }

    var count: Int { pairs.count }
}
