/// The parser's fast path: a URL already in the form the Standard would serialize it to.
///
/// Most deep links are: a lower-case scheme, `//`, a lower-case host without credentials or
/// port, a path without dot segments or characters to encode, a plain query. For those the href
/// is the input itself, so one scan over the bytes gives the layout. Anything else returns `nil`
/// and goes through the full parser, which gives the same answer for these inputs.
enum URLFastPath {
    enum Allowed {
        /// Lower-case letters, digits, '+', '-' and '.'.
        @inline(__always) static var scheme: ByteSet { ByteSet(low: 0x03FF680000000000, high: 0x07FFFFFE00000000) }
        @inline(__always) static var specialHost: ByteSet { ByteSet(low: 0x03FF600000000000, high: 0x07FFFFFE00000000) }
        @inline(__always) static var opaqueHost: ByteSet { ByteSet(low: 0x03FF600000000000, high: 0x47FFFFFE87FFFFFE) }
        @inline(__always) static var segment: ByteSet { ByteSet(low: 0x2FFF7FD200000000, high: 0x47FFFFFE87FFFFFF) }
        @inline(__always) static var query: ByteSet { ByteSet(low: 0xAFFFFFF200000000, high: 0x7FFFFFFFFFFFFFFF) }
        @inline(__always) static var specialQuery: ByteSet {
            ByteSet(low: 0xAFFFFF7200000000, high: 0x7FFFFFFFFFFFFFFF)
        }
        @inline(__always) static var fragment: ByteSet { ByteSet(low: 0xAFFFFFFA00000000, high: 0x7FFFFFFEFFFFFFFF) }
    }

    @inline(__always)
    static func layout(_ input: UnsafeBufferPointer<UInt8>) -> URLLayout? {
        let count = input.count
        var index = 0
        // Scheme: lower-case letters, digits, '+', '-', '.', starting with a letter.
        guard count > 0, input[0] >= 0x61, input[0] <= 0x7A else { return nil }
        while index < count && Allowed.scheme.contains(input[index]) { index &+= 1 }
        guard index + 2 < count, input[index] == 0x3A, input[index + 1] == 0x2F, input[index + 2] == 0x2F else {
            return nil
        }
        var layout = URLLayout()
        layout.schemeEnd = index
        let special = URLCore.Parser.specialScheme(UnsafeBufferPointer(rebasing: input[0..<index]))
        if special == .file { return nil }
        layout.special = special
        layout.hasHost = true
        index &+= 3
        layout.usernameStart = index
        layout.usernameEnd = index
        layout.passwordStart = index
        layout.passwordEnd = index
        layout.hostStart = index
        let hostSet = special != nil ? Allowed.specialHost : Allowed.opaqueHost
        var labelStart = index
        // The common bytes first: one set test per byte, separators only at the end.
        while index < count {
            let byte = input[index]
            if hostSet.contains(byte) {
                if byte == 0x2E { labelStart = index &+ 1 }
                index &+= 1
                continue
            }
            if byte == 0x2F || byte == 0x3F || byte == 0x23 { break }
            return nil
        }
        layout.hostEnd = index
        if special != nil {
            // A host ending in a number is an IPv4 address: leave those to the full parser.
            guard index > layout.hostStart, labelStart < index, input[labelStart] >= 0x61 else { return nil }
            // The full parser adds the root path.
            guard index < count, input[index] == 0x2F else { return nil }
        }
        layout.pathStart = index
        layout.pathEnd = index
        if index < count && input[index] == 0x2F {
            var segmentStart = index &+ 1
            index &+= 1
            while true {
                let byte: UInt8 = index < count ? input[index] : 0x3F
                // The segment set holds neither '/' nor '?' nor '#'.
                if Allowed.segment.contains(byte) {
                    index &+= 1
                    continue
                }
                if byte == 0x2F || byte == 0x3F || byte == 0x23 {
                    let length = index &- segmentStart
                    if (length == 1 && input[segmentStart] == 0x2E)
                        || (length == 2 && input[segmentStart] == 0x2E && input[segmentStart &+ 1] == 0x2E)
                    {
                        return nil
                    }
                    if byte != 0x2F { break }
                    segmentStart = index &+ 1
                } else {
                    return nil
                }
                index &+= 1
            }
            layout.pathEnd = index
        }
        if index < count && input[index] == 0x3F {
            index &+= 1
            layout.queryStart = index
            let querySet = special != nil ? Allowed.specialQuery : Allowed.query
            // The query sets do not hold '#'.
            while index < count && querySet.contains(input[index]) { index &+= 1 }
            if index < count && input[index] != 0x23 { return nil }
            layout.queryEnd = index
        }
        if index < count && input[index] == 0x23 {
            index &+= 1
            layout.fragmentStart = index
            while index < count {
                guard Allowed.fragment.contains(input[index]) else { return nil }
                index &+= 1
            }
        }
        layout.end = count
        return layout
    }
}
