/// IPv4 and IPv6 parsing and serialization per the WHATWG URL Standard's host parser.
enum HostParsing {
    /// Parses one IPv4 part ("0x" hex, leading-zero octal, or decimal), saturating large values.
    static func ipv4Number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt64? {
        var start = start
        if start == end { return nil }
        var radix: UInt64 = 10
        if end - start >= 2 && bytes[start] == 0x30 && (bytes[start + 1] | 0x20) == 0x78 {
            radix = 16
            start += 2
        } else if end - start >= 2 && bytes[start] == 0x30 {
            radix = 8
            start += 1
        }
        var value: UInt64 = 0
        for index in start..<end {
            let byte = bytes[index]
            let digit: UInt64
            if let hex = hexValue(byte) { digit = UInt64(hex) } else { return nil }
            if digit >= radix { return nil }
            value = value > 0xFFFF_FFFF_FF ? value : value * radix + digit
        }
        return value
    }

    /// Whether the host "ends in a number" and so must be parsed as IPv4.
    static func endsInNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var end = end
        if end > start && bytes[end - 1] == 0x2E {
            // A lone "." is one empty part, not a number.
            if end - 1 == start { return false }
            end -= 1
        }
        var lastStart = end
        while lastStart > start && bytes[lastStart - 1] != 0x2E { lastStart -= 1 }
        if lastStart < end && (lastStart..<end).allSatisfy({ isASCIIDigit(bytes[$0]) }) { return true }
        return ipv4Number(bytes, lastStart, end) != nil
    }

    /// Parses an IPv4 host; `nil` is failure.
    static func parseIPv4(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt32? {
        var end = end
        if end > start && bytes[end - 1] == 0x2E && end - 1 > start { end -= 1 }
        var parts: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        var partStart = start
        var index = start
        while true {
            if index == end || bytes[index] == 0x2E {
                if count == 4 { return nil }
                guard let number = ipv4Number(bytes, partStart, index) else { return nil }
                switch count {
                case 0: parts.0 = number
                case 1: parts.1 = number
                case 2: parts.2 = number
                default: parts.3 = number
                }
                count += 1
                if index == end { break }
                partStart = index + 1
            }
            index += 1
        }
        let numbers = [parts.0, parts.1, parts.2, parts.3].prefix(count)
        for number in numbers.dropLast() where number > 255 { return nil }
        let last = numbers.last!
        if last >= (1 as UInt64) << (8 * UInt64(5 - count)) { return nil }
        var ipv4 = last
        for (position, number) in numbers.dropLast().enumerated() {
            ipv4 += number << (8 * UInt64(3 - position))
        }
        return UInt32(ipv4)
    }

    /// Parses the inside of an IPv6 literal (without brackets); `nil` is failure.
    static func parseIPv6(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int? = nil
        var pointer = start
        func at(_ index: Int) -> UInt8? { index < end ? bytes[index] : nil }
        if at(pointer) == 0x3A {
            if at(pointer + 1) != 0x3A { return nil }
            pointer += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while let byte = at(pointer) {
            if pieceIndex == 8 { return nil }
            if byte == 0x3A {
                if compress != nil { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let next = at(pointer), let hex = hexValue(next) {
                value = value * 0x10 + UInt16(hex)
                pointer += 1
                length += 1
            }
            if at(pointer) == 0x2E {
                if length == 0 { return nil }
                pointer -= length
                if pieceIndex > 6 { return nil }
                var numbersSeen = 0
                while at(pointer) != nil {
                    var ipv4Piece: Int? = nil
                    if numbersSeen > 0 {
                        if at(pointer) == 0x2E && numbersSeen < 4 { pointer += 1 } else { return nil }
                    }
                    guard let first = at(pointer), isASCIIDigit(first) else { return nil }
                    while let digitByte = at(pointer), isASCIIDigit(digitByte) {
                        let number = Int(digitByte - 0x30)
                        if let current = ipv4Piece {
                            if current == 0 { return nil }
                            ipv4Piece = current * 10 + number
                        } else {
                            ipv4Piece = number
                        }
                        if ipv4Piece! > 255 { return nil }
                        pointer += 1
                    }
                    address[pieceIndex] = address[pieceIndex] * 0x100 + UInt16(ipv4Piece!)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                if numbersSeen != 4 { return nil }
                break
            } else if at(pointer) == 0x3A {
                pointer += 1
                if at(pointer) == nil { return nil }
            } else if at(pointer) != nil {
                return nil
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0 && swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// Serializes an IPv6 address without brackets, compressing the first longest run of zeros.
    static func serializeIPv6(_ address: [UInt16]) -> [UInt8] {
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            if address[index] == 0 {
                var runEnd = index
                while runEnd < 8 && address[runEnd] == 0 { runEnd += 1 }
                if runEnd - index > bestLength {
                    bestStart = index
                    bestLength = runEnd - index
                }
                index = runEnd
            } else {
                index += 1
            }
        }
        var output: [UInt8] = []
        var ignore0 = false
        for pieceIndex in 0..<8 {
            if ignore0 && address[pieceIndex] == 0 { continue }
            ignore0 = false
            if pieceIndex == bestStart {
                output.append(contentsOf: pieceIndex == 0 ? [0x3A, 0x3A] : [0x3A])
                ignore0 = true
                continue
            }
            output.append(contentsOf: String(address[pieceIndex], radix: 16).utf8)
            if pieceIndex != 7 { output.append(0x3A) }
        }
        return output
    }
}
