extension Destination {
    /// The typed parameters of a destination: the path parameters in pattern order, then the
    /// query parameters by name.
    ///
    /// A collection of ``Parameter`` values that resolving fills without touching the heap for
    /// typical URLs: the values of up to four parameters, 48 UTF-8 bytes in all, are kept inline
    /// and become `String`s only when an element is read; names and kinds are never copied but
    /// read from the route table. Further parameters and longer values are stored as strings in
    /// an array (one allocation, plus one per value longer than 15 bytes).
    public struct Parameters: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible {
        /// The route the parameters belong to; it names and types every slot.
        let info: RouteInfo
        /// The inline values' bytes, back to back.
        private var inlineBytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        /// Where each inline value ends in `inlineBytes`.
        private var inlineEnds: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        /// The slots of the inline values: each parameter's position among the route's path
        /// parameters, then its query parameters.
        private var inlineSlots: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
        /// How many parameters are inline; the rest, in order, are in `spilled`.
        private var storedInlineCount: UInt8 = 0
        private var storedCount: UInt32 = 0
        private var spilled: [Spilled] = []

        // Small fields keep a `Resolution` within 128 bytes, which the compiler copies with a
        // few vector moves rather than a call to memcpy.
        private var inlineCount: Int { Int(storedInlineCount) }
        /// How many parameters there are.
        public var count: Int { Int(storedCount) }

        /// At most this many parameters are stored inline.
        static let inlineCapacity = 4
        /// Inline values hold at most this many bytes together.
        static let inlineByteCapacity = 48

        private struct Spilled: Hashable, Sendable {
            var slot: Int
            var value: String
        }

        /// Creates an empty list for a route.
        init(info: RouteInfo) {
            self.info = info
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        /// The parameter at `position`.
        public subscript(position: Int) -> Parameter {
            precondition(position >= 0 && position < count, "parameter index out of range")
            return info.parameter(slot: slot(at: position), value: value(at: position))
        }

        /// Whether the parameters spilled out of inline storage (for tests).
        var isInline: Bool { spilled.isEmpty }

        /// The slot of the parameter at `position` in its route.
        func slot(at position: Int) -> Int {
            if position >= inlineCount { return spilled[position - inlineCount].slot }
            switch position {
            case 0: return Int(inlineSlots.0)
            case 1: return Int(inlineSlots.1)
            case 2: return Int(inlineSlots.2)
            default: return Int(inlineSlots.3)
            }
        }

        private func inlineEnd(_ position: Int) -> Int {
            switch position {
            case 0: Int(inlineEnds.0)
            case 1: Int(inlineEnds.1)
            case 2: Int(inlineEnds.2)
            default: Int(inlineEnds.3)
            }
        }

        /// The value of the parameter at `position`.
        func value(at position: Int) -> String {
            if position >= inlineCount { return spilled[position - inlineCount].value }
            let start = position == 0 ? 0 : inlineEnd(position - 1)
            let end = inlineEnd(position)
            return withUnsafeBytes(of: inlineBytes) { raw in
                String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
            }
        }

        /// The value of the route's parameter in `slot`, if present.
        func value(forSlot slot: Int) -> String? {
            for position in 0..<count where self.slot(at: position) == slot { return value(at: position) }
            return nil
        }

        /// Adds the value of the route's parameter in `slot`, given as UTF-8 bytes.
        mutating func append(slot: Int, bytes: UnsafeBufferPointer<UInt8>) {
            let start = inlineCount == 0 ? 0 : inlineEnd(inlineCount - 1)
            guard
                spilled.isEmpty && inlineCount < Self.inlineCapacity
                    && start + bytes.count <= Self.inlineByteCapacity && slot <= Int(UInt16.max)
            else {
                spilled.append(Spilled(slot: slot, value: String(decoding: bytes, as: UTF8.self)))
                storedCount += 1
                return
            }
            withUnsafeMutableBytes(of: &inlineBytes) { raw in
                if bytes.count > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: raw[start..<start + bytes.count]).copyMemory(
                        from: UnsafeRawBufferPointer(bytes))
                }
            }
            let end = UInt8(truncatingIfNeeded: start + bytes.count)
            let slot16 = UInt16(truncatingIfNeeded: slot)
            switch inlineCount {
            case 0: (inlineEnds.0, inlineSlots.0) = (end, slot16)
            case 1: (inlineEnds.1, inlineSlots.1) = (end, slot16)
            case 2: (inlineEnds.2, inlineSlots.2) = (end, slot16)
            default: (inlineEnds.3, inlineSlots.3) = (end, slot16)
            }
            storedInlineCount += 1
            storedCount += 1
        }

        /// Adds the value of the route's parameter in `slot`.
        mutating func append(slot: Int, value: String) {
            if value.utf8.count > Self.inlineByteCapacity || !spilled.isEmpty || inlineCount == Self.inlineCapacity
                || slot > Int(UInt16.max)
            {
                spilled.append(Spilled(slot: slot, value: value))
                storedCount += 1
                return
            }
            withUTF8Bytes(value) { append(slot: slot, bytes: $0) }
        }

        public static func == (lhs: Parameters, rhs: Parameters) -> Bool {
            lhs.count == rhs.count && lhs.elementsEqual(rhs)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(count)
            for parameter in self { hasher.combine(parameter) }
        }

        public var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }
    }
}
