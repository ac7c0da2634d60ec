/// The routing trie, flattened into immutable raw memory so a lookup never allocates, retains
/// or bounds-checks.
///
/// Each node has static children (found by length and an 8-byte prefix), typed children
/// (int, uuid, slug, enum), at most one untyped child, at most one catch-all route and at most
/// one route ending there. Lookup is a depth-first search in precedence order that backtracks;
/// among typed children, every one that accepts the segment is explored and the match with the
/// best precedence wins.
final class Matcher: @unchecked Sendable {
    // @unchecked: the buffers are written once in init and only read afterwards.
    struct Node {
        var staticStart: Int32 = 0
        var staticCount: Int32 = 0
        var typedStart: Int32 = 0
        var typedCount: Int32 = 0
        var stringChild: Int32 = -1
        var catchAllRoute: Int32 = -1
        var route: Int32 = -1
        /// Where this node's hash table of static keys starts in `slots`, when it has one.
        var hashStart: Int32 = 0
        /// The table's size minus one; 0 when static keys are scanned linearly.
        var hashMask: Int32 = 0
        /// Whether the node has only static children (and so never needs to backtrack).
        var onlyStatic = true
    }

    struct Key {
        var prefix: UInt64
        var length: Int32
        var offset: Int32
        var child: Int32
    }

    struct TypedEdge {
        var kind: ParameterKind
        var valuesStart: Int32
        var valuesCount: Int32
        var child: Int32
    }

    /// The flattened tables, owned by this object; a plain struct of pointers so that lookups
    /// copy it without reference counting.
    let tables: MatcherTables
    var maxCaptures: Int { tables.maxCaptures }

    private final class Builder {
        var statics: [([UInt8], Builder)] = []
        var typed: [(ParameterType, Builder)] = []
        var string: Builder? = nil
        var catchAll: Int? = nil
        var route: Int? = nil
    }

    init(routes: [RouteInfo]) {
        let root = Builder()
        var maxCaptures = 0
        for info in routes {
            maxCaptures = max(maxCaptures, info.pathParameters.count)
            var node = root
            for segment in info.segments {
                switch segment {
                case .literal(let text):
                    let key = Array(text.utf8)
                    if let existing = node.statics.first(where: { $0.0 == key }) {
                        node = existing.1
                    } else {
                        let child = Builder()
                        node.statics.append((key, child))
                        node = child
                    }
                case .parameter(_, let type) where type.kind == .catchAll:
                    if node.catchAll == nil { node.catchAll = info.index }
                case .parameter(_, let type) where type.kind == .string:
                    if node.string == nil { node.string = Builder() }
                    node = node.string!
                case .parameter(_, let type):
                    if let existing = node.typed.first(where: { $0.0 == type }) {
                        node = existing.1
                    } else {
                        let child = Builder()
                        node.typed.append((type, child))
                        node = child
                    }
                }
            }
            if case .parameter(_, let type)? = info.segments.last, type.kind == .catchAll { continue }
            if node.route == nil { node.route = info.index }
        }
        // Flatten breadth-first; children of one node are contiguous.
        var nodeList: [Node] = [Node()]
        var keyList: [Key] = []
        var typedList: [TypedEdge] = []
        var byteList: [UInt8] = []
        var slotList: [Int32] = []
        var queue: [(Builder, Int)] = [(root, 0)]
        var head = 0
        func addKey(_ key: [UInt8], child: Int) -> Key {
            let entry = Key(
                prefix: key.withUnsafeBufferPointer { Matcher.prefix($0.baseAddress!, key.count) },
                length: Int32(key.count), offset: Int32(byteList.count), child: Int32(child))
            byteList.append(contentsOf: key)
            return entry
        }
        while head < queue.count {
            let (builder, index) = queue[head]
            head += 1
            var node = Node()
            node.route = Int32(builder.route ?? -1)
            node.catchAllRoute = Int32(builder.catchAll ?? -1)
            node.staticStart = Int32(keyList.count)
            node.staticCount = Int32(builder.statics.count)
            for (key, child) in builder.statics.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                nodeList.append(Node())
                queue.append((child, nodeList.count - 1))
                keyList.append(addKey(key, child: nodeList.count - 1))
            }
            if builder.statics.count >= Matcher.hashThreshold {
                // Open addressing with linear probing, at most half full.
                var size = 8
                while size < builder.statics.count * 2 { size *= 2 }
                node.hashStart = Int32(slotList.count)
                node.hashMask = Int32(size - 1)
                slotList.append(contentsOf: repeatElement(-1, count: size))
                for keyIndex in Int(node.staticStart)..<keyList.count {
                    var slot = Matcher.hash(keyList[keyIndex].prefix, Int(keyList[keyIndex].length)) & (size - 1)
                    while slotList[Int(node.hashStart) + slot] >= 0 { slot = (slot + 1) & (size - 1) }
                    slotList[Int(node.hashStart) + slot] = Int32(keyIndex)
                }
            }
            var edges: [TypedEdge] = []
            for (type, child) in builder.typed {
                nodeList.append(Node())
                queue.append((child, nodeList.count - 1))
                edges.append(
                    TypedEdge(kind: type.kind, valuesStart: 0, valuesCount: 0, child: Int32(nodeList.count - 1)))
                if type.kind == .enum {
                    // Enum values live in the key table, after every static key of this node.
                    edges[edges.count - 1].valuesCount = Int32(type.values.count)
                }
            }
            node.typedStart = Int32(typedList.count)
            node.typedCount = Int32(edges.count)
            for (position, (type, _)) in builder.typed.enumerated() where type.kind == .enum {
                edges[position].valuesStart = Int32(keyList.count)
                for value in type.values { keyList.append(addKey(Array(value.utf8), child: -1)) }
            }
            typedList.append(contentsOf: edges)
            if let string = builder.string {
                nodeList.append(Node())
                queue.append((string, nodeList.count - 1))
                node.stringChild = Int32(nodeList.count - 1)
            }
            node.onlyStatic = node.typedCount == 0 && node.stringChild < 0 && node.catchAllRoute < 0
            nodeList[index] = node
        }
        func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
            _ = buffer.initialize(from: array)
            return buffer
        }
        tables = MatcherTables(
            nodes: copy(nodeList), keys: copy(keyList), typed: copy(typedList), bytes: copy(byteList),
            parameterCounts: copy(routes.map { Int32($0.pathParameters.count) }), slots: copy(slotList),
            maxCaptures: maxCaptures)
    }

    deinit {
        tables.nodes.deallocate()
        tables.keys.deallocate()
        tables.typed.deallocate()
        tables.bytes.deallocate()
        tables.parameterCounts.deallocate()
        tables.slots.deallocate()
    }
}

/// The matcher's memory: the nodes, static keys, typed edges and key bytes.
struct MatcherTables: @unchecked Sendable {
    // @unchecked: read-only memory owned by a `Matcher`.
    typealias Node = Matcher.Node
    typealias Key = Matcher.Key
    typealias TypedEdge = Matcher.TypedEdge

    let nodes: UnsafeMutableBufferPointer<Node>
    let keys: UnsafeMutableBufferPointer<Key>
    let typed: UnsafeMutableBufferPointer<TypedEdge>
    let bytes: UnsafeMutableBufferPointer<UInt8>
    /// The number of path parameters of each route.
    let parameterCounts: UnsafeMutableBufferPointer<Int32>
    /// The hash tables of nodes with many static children: key indices, -1 for empty.
    let slots: UnsafeMutableBufferPointer<Int32>
    /// The most path parameters of any route: the capture slots a lookup needs.
    let maxCaptures: Int

}

extension Matcher {
    /// Nodes with at least this many static children find them by hashing.
    static let hashThreshold = 6

    /// The hash of a static key: its zero-padded first eight bytes and its length.
    @inline(__always)
    static func hash(_ prefix: UInt64, _ length: Int) -> Int {
        Int(truncatingIfNeeded: ((prefix &+ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }

    /// The same, with one load when eight bytes can be read before `limit`.
    @inline(__always)
    static func prefix(_ base: UnsafePointer<UInt8>, _ count: Int, limit: UnsafePointer<UInt8>) -> UInt64 {
        if base + 8 <= limit {
            let word = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            return count >= 8 ? word : word & ((1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1)
        }
        return prefix(base, count)
    }

    /// The first eight bytes of a key, zero-padded, as one integer.
    @inline(__always)
    static func prefix(_ base: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        if count >= 8 { return UnsafeRawPointer(base).loadUnaligned(as: UInt64.self) }
        var value: UInt64 = 0
        var index = 0
        while index < count {
            value |= UInt64(base[index]) << (UInt64(index) &* 8)
            index &+= 1
        }
        return value
    }

}

extension MatcherTables {
    /// The state of one lookup: the path bytes, where it ends, scratch memory for decoded
    /// segments (same indices as the path; only for a path holding `%`) and two capture slots
    /// per path parameter.
    struct Lookup {
        let path: UnsafePointer<UInt8>
        let end: Int
        let scratch: UnsafeMutablePointer<UInt8>?
        let captures: UnsafeMutablePointer<Int>
    }

    /// What `match` returns when a segment holds `%` and the lookup has no scratch memory.
    static let needsScratch = -2

    /// Matches the path `path[start..<end]` (segments separated by `/`, no leading `/`).
    ///
    /// - Returns: The index of the matched route, -1, or `needsScratch` (only without scratch).
    @inline(__always)
    func match(_ lookup: Lookup, start: Int) -> Int {
        match(node: 0, position: start, depth: 0, lookup)
    }

    func match(node startNode: Int, position startPosition: Int, depth startDepth: Int, _ lookup: Lookup) -> Int {
        var index = startNode
        var position = startPosition
        var depth = startDepth
        // Loops instead of recursing while a node leaves a single way forward; recursion is kept
        // for the places where backtracking may be needed.
        while true {
            // Read fields through a pointer: copying the whole node costs more than the few it uses.
            let node = UnsafePointer(nodes.baseAddress! + index)
            if position > lookup.end {
                if node.pointee.route >= 0 { return Int(node.pointee.route) }
                if node.pointee.catchAllRoute >= 0 {
                    lookup.captures[2 &* depth] = lookup.end
                    lookup.captures[2 &* depth &+ 1] = lookup.end
                    return Int(node.pointee.catchAllRoute)
                }
                return -1
            }
            var segment = lookup.path + position
            var length: Int
            var limit = lookup.path + lookup.end
            let segmentEnd: Int
            if let scratch = lookup.scratch {
                // The path holds a '%': decode the segments that do.
                var end = position
                var encoded = false
                while end < lookup.end {
                    let byte = lookup.path[end]
                    if byte == 0x2F { break }
                    if byte == 0x25 { encoded = true }
                    end &+= 1
                }
                segmentEnd = end
                length = segmentEnd &- position
                if encoded {
                    length = percentDecode(segment, length, into: scratch + position)
                    segment = UnsafePointer(scratch + position)
                    limit = UnsafePointer(scratch + lookup.end)
                }
            } else {
                let scan = findSegmentEnd(lookup.path, from: position, end: lookup.end)
                // An escape to decode, and no scratch memory: the caller retries with some.
                if scan.hasPercent { return Self.needsScratch }
                segmentEnd = scan.end
                length = segmentEnd &- position
            }
            let next = segmentEnd &+ 1
            let onlyStatic = node.pointee.onlyStatic
            var staticChild = -1
            if node.pointee.hashMask > 0 {
                let prefix = Matcher.prefix(segment, length, limit: limit)
                let mask = Int(node.pointee.hashMask)
                var slot = Matcher.hash(prefix, length) & mask
                while true {
                    let keyIndex = Int(slots[Int(node.pointee.hashStart) &+ slot])
                    if keyIndex < 0 { break }
                    let key = keys[keyIndex]
                    if key.prefix == prefix && Int(key.length) == length
                        && (length <= 8
                            || memoryEqual(bytes.baseAddress! + Int(key.offset) + 8, segment + 8, length &- 8))
                    {
                        staticChild = Int(key.child)
                        break
                    }
                    slot = (slot &+ 1) & mask
                }
            } else if node.pointee.staticCount > 0 {
                let prefix = Matcher.prefix(segment, length, limit: limit)
                var edgeIndex = Int(node.pointee.staticStart)
                let edgeEnd = edgeIndex &+ Int(node.pointee.staticCount)
                while edgeIndex < edgeEnd {
                    let key = keys[edgeIndex]
                    if key.prefix == prefix && Int(key.length) == length
                        && (length <= 8
                            || memoryEqual(bytes.baseAddress! + Int(key.offset) + 8, segment + 8, length &- 8))
                    {
                        staticChild = Int(key.child)
                        break
                    }
                    edgeIndex &+= 1
                }
            }
            if staticChild >= 0 {
                if onlyStatic {
                    index = staticChild
                    position = next
                    continue
                }
                let found = match(node: staticChild, position: next, depth: depth, lookup)
                if found >= 0 || found == Self.needsScratch { return found }
            } else if onlyStatic {
                return -1
            }
            if node.pointee.typedCount > 0 {
                var best = -1
                var bestEdge = -1
                var lastEdge = -1
                var edgeIndex = Int(node.pointee.typedStart)
                let edgeEnd = edgeIndex &+ Int(node.pointee.typedCount)
                while edgeIndex < edgeEnd {
                    let edge = typed[edgeIndex]
                    if accepts(edge, segment, length) {
                        lookup.captures[2 &* depth] = position
                        lookup.captures[2 &* depth &+ 1] = segmentEnd
                        let found = match(node: Int(edge.child), position: next, depth: depth &+ 1, lookup)
                        if found == Self.needsScratch { return found }
                        if found >= 0 {
                            lastEdge = edgeIndex
                            if best < 0 || found < best {
                                best = found
                                bestEdge = edgeIndex
                            }
                        }
                    }
                    edgeIndex &+= 1
                }
                if best >= 0 {
                    if bestEdge != lastEdge {
                        // A later edge overwrote the captures of the winner: replay it.
                        lookup.captures[2 &* depth] = position
                        lookup.captures[2 &* depth &+ 1] = segmentEnd
                        _ = match(node: Int(typed[bestEdge].child), position: next, depth: depth &+ 1, lookup)
                    }
                    return best
                }
            }
            if node.pointee.stringChild >= 0 {
                lookup.captures[2 &* depth] = position
                lookup.captures[2 &* depth &+ 1] = segmentEnd
                if node.pointee.catchAllRoute < 0 {
                    index = Int(node.pointee.stringChild)
                    position = next
                    depth &+= 1
                    continue
                }
                let found = match(node: Int(node.pointee.stringChild), position: next, depth: depth &+ 1, lookup)
                if found >= 0 || found == Self.needsScratch { return found }
            }
            if node.pointee.catchAllRoute >= 0 {
                lookup.captures[2 &* depth] = position
                lookup.captures[2 &* depth &+ 1] = lookup.end
                return Int(node.pointee.catchAllRoute)
            }
            return -1
        }
    }

    @inline(__always)
    func accepts(_ edge: TypedEdge, _ segment: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        switch edge.kind {
        case .int:
            guard length >= 1 && length <= 18 else { return false }
            for index in 0..<length where !isASCIIDigit(segment[index]) { return false }
            return true
        case .slug:
            guard length >= 1 else { return false }
            for index in 0..<length {
                let byte = segment[index]
                if !ByteSets.slug.contains(byte) { return false }
            }
            return true
        case .enum:
            let prefix = Matcher.prefix(segment, length)
            var valueIndex = Int(edge.valuesStart)
            let valueEnd = valueIndex &+ Int(edge.valuesCount)
            while valueIndex < valueEnd {
                let key = keys[valueIndex]
                if key.prefix == prefix && Int(key.length) == length
                    && (length <= 8 || memoryEqual(bytes.baseAddress! + Int(key.offset) + 8, segment + 8, length &- 8))
                {
                    return true
                }
                valueIndex &+= 1
            }
            return false
        default:
            return ParameterType(kind: edge.kind).accepts(UnsafeBufferPointer(start: segment, count: length))
        }
    }
}

/// The index of the first `/` in `path[start..<end]` (or `end`), unless a `%` comes before it:
/// then `hasPercent` is true and the index means nothing. Eight bytes at a time.
@inline(__always)
func findSegmentEnd(_ path: UnsafePointer<UInt8>, from start: Int, end: Int) -> (end: Int, hasPercent: Bool) {
    var index = start
    while index &+ 8 <= end {
        let word = UnsafeRawPointer(path + index).loadUnaligned(as: UInt64.self)
        // A byte equal to the target becomes zero and sets its high bit; a false hit only ever
        // lies above a true one, so the lowest hit is exact and "any hit" is too.
        let slashes = zeroBytes(word ^ 0x2F2F_2F2F_2F2F_2F2F)
        let percents = zeroBytes(word ^ 0x2525_2525_2525_2525)
        if slashes != 0 {
            let below = (slashes & (0 &- slashes)) &- 1
            return (index &+ slashes.trailingZeroBitCount &>> 3, percents & below != 0)
        }
        if percents != 0 { return (index, true) }
        index &+= 8
    }
    while index < end {
        let byte = path[index]
        if byte == 0x2F { break }
        if byte == 0x25 { return (index, true) }
        index &+= 1
    }
    return (index, false)
}

/// The high bit of every zero byte of `word` (and possibly of bytes above a zero byte).
@inline(__always)
func zeroBytes(_ word: UInt64) -> UInt64 {
    (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
}

/// Whether two byte buffers hold the same bytes.
@inline(__always)
func bytesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    a.count == b.count && (a.count == 0 || memoryEqual(a.baseAddress!, b.baseAddress!, a.count))
}

@inline(__always)
func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    while index < count {
        if a[index] != b[index] { return false }
        index &+= 1
    }
    return true
}

/// Percent-decodes `count` bytes into `output` (which may be `input` itself); an invalid escape
/// stays as it is. Returns the decoded length.
@inline(__always)
func percentDecode(_ input: UnsafePointer<UInt8>, _ count: Int, into output: UnsafeMutablePointer<UInt8>) -> Int {
    var read = 0
    var written = 0
    while read < count {
        let byte = input[read]
        if byte == 0x25 && read &+ 2 < count, let high = hexValue(input[read &+ 1]),
            let low = hexValue(input[read &+ 2])
        {
            output[written] = high << 4 | low
            read &+= 3
        } else {
            output[written] = byte
            read &+= 1
        }
        written &+= 1
    }
    return written
}
