/// Resolves app-scheme URLs, universal links and open-intent targets to destinations, and
/// generates canonical links back.
///
/// Immutable and `Sendable`: build one per route table and share it. Resolving only navigates;
/// it never loads content. Resolving a typical URL does not allocate: parsing, matching and
/// decoding work in stack memory, and the destination keeps its values inline (see
/// ``Destination/Parameters``). Reverse routing allocates only the link strings it returns.
public struct Router: Sendable {
    /// Everything the router holds, behind one reference so that copying a router costs one
    /// retain.
    let core: RouterCore

    /// Creates a router.
    ///
    /// - Parameters:
    ///   - table: A loaded route table.
    ///   - maxURLLength: The longest URL accepted, in UTF-8 bytes.
    public init(table: RouteTable, maxURLLength: Int = 8192) {
        core = RouterCore(table: table, maxURLLength: maxURLLength)
    }

    /// Wraps a core that the caller keeps alive, without retaining it again.
    @inline(__always)
    init(unretainedCore: Unmanaged<RouterCore>) {
        core = unretainedCore._withUnsafeGuaranteedRef { $0 }
    }

    /// The table this router was built from.
    public var table: RouteTable { core.table }
    /// URLs longer than this many UTF-8 bytes are refused with `.tooLong`.
    public var maxURLLength: Int { core.maxURLLength }
    var matcher: Matcher { core.matcher }
    var schemes: ByteStrings { core.schemes }
    var hosts: ByteStrings { core.hosts }
    var entityRoutes: [String: Int] { core.entityRoutes }
    var fallback: RouteInfo? { core.fallback }

    /// The routes in precedence order.
    public var routes: [Route] { table.routes }

    /// The entity types among `types` that no route opens, sorted; a type without an open
    /// route cannot appear in results.
    ///
    /// - Parameter types: The entity types of a catalog.
    /// - Returns: The types without a route.
    public func missingRoutes(forEntityTypes types: some Sequence<String>) -> [String] {
        Set(types.filter { entityRoutes[$0] == nil }).sorted()
    }

    /// Whether a route opens entities of `type`.
    public func opens(entityType type: String) -> Bool { entityRoutes[type] != nil }

    // MARK: Path lookup

    /// The result of a raw path lookup: the route and where its path parameters are.
    public struct PathMatch: Sendable {
        /// The index of the matched route in `routes`.
        public let routeIndex: Int
        /// How many path parameters were captured (at most 8 are recorded).
        public let parameterCount: Int
        var bounds: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        /// The UTF-8 offsets of a captured (still percent-encoded) parameter in the path.
        ///
        /// - Parameter index: The parameter's position among the route's path parameters.
        /// - Returns: The byte range in the looked-up path.
        public func parameterRange(at index: Int) -> Range<Int> {
            precondition(index >= 0 && index < min(parameterCount, 8), "parameter index out of range")
            let packed = withUnsafeBytes(of: bounds) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
            return Int(packed >> 32)..<Int(packed & 0xFFFF_FFFF)
        }
    }

    /// Matches a path such as `/album/abbey-road` against the routes, as an HTTP router would.
    ///
    /// No URL parsing and no decoding into strings: this is the routing step alone.
    ///
    /// - Parameter path: A path starting with `/`.
    /// - Returns: The match, or `nil` when no route matches.
    @inline(__always)
    public func lookup(path: String) -> PathMatch? {
        // The router keeps its core alive for the whole call: no need to retain it again.
        let core = Unmanaged.passUnretained(self.core)
        if let result = path.utf8.withContiguousStorageIfAvailable({ bytes in
            core._withUnsafeGuaranteedRef { $0.lookup(bytes) }
        }) {
            return result
        }
        var path = path
        return path.withUTF8 { core.takeUnretainedValue().lookup($0) }
    }
}

/// The state a router shares between its copies.
final class RouterCore: Sendable {
    let table: RouteTable
    let infos: [RouteInfo]
    let maxURLLength: Int
    let matcher: Matcher
    let tables: MatcherTables
    let schemes: ByteStrings
    let hosts: ByteStrings
    let entityRoutes: [String: Int]
    let fallback: RouteInfo?
    let strictTrailingSlash: Bool
    /// The entity types that have a route, for lookups that neither hash nor allocate; the
    /// route indices in `entityRouteIndices` at the same positions.
    let entityTypes: ByteStrings
    let entityRouteIndices: [Int]

    init(table: RouteTable, maxURLLength: Int) {
        self.table = table
        infos = table.infos
        self.maxURLLength = maxURLLength
        matcher = Matcher(routes: table.infos)
        tables = matcher.tables
        schemes = ByteStrings(table.schemes)
        hosts = ByteStrings(table.hosts)
        var entityRoutes: [String: Int] = [:]
        for info in table.infos {
            if let type = info.entityType { entityRoutes[type] = info.index }
        }
        self.entityRoutes = entityRoutes
        let entities = entityRoutes.sorted { $0.key < $1.key }
        entityTypes = ByteStrings(entities.map(\.key))
        entityRouteIndices = entities.map(\.value)
        fallback = table.fallbackRoute.flatMap { name in table.infos.first { $0.name == name } }
        strictTrailingSlash = table.trailingSlash == .strict
    }

    deinit {
        schemes.deallocate()
        hosts.deallocate()
        entityTypes.deallocate()
    }

    /// The index of the route that opens `entityType`, if any.
    @inline(__always)
    func entityRouteIndex(_ entityType: String) -> Int? {
        withUTF8Bytes(entityType) { entityTypes.firstIndex(of: $0) }.map { entityRouteIndices[$0] }
    }

    @inline(__always)
    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Router.PathMatch? {
        guard bytes.count > 0, bytes[0] == 0x2F else { return nil }
        let captureCount = 2 * tables.maxCaptures + 2
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: captureCount) { buffer in
            let captures = buffer.baseAddress!
            var route = match(bytes.baseAddress!, start: 1, end: bytes.count, scratch: nil, captures: captures)
            if route == MatcherTables.needsScratch {
                // Scratch memory only serves to decode '%' escapes; most paths have none.
                route = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { scratch in
                    match(
                        bytes.baseAddress!, start: 1, end: bytes.count, scratch: scratch.baseAddress!,
                        captures: captures)
                }
            }
            guard route >= 0 else { return nil }
            let count = Int(tables.parameterCounts[route])
            var result = Router.PathMatch(routeIndex: route, parameterCount: count, bounds: (0, 0, 0, 0, 0, 0, 0, 0))
            withUnsafeMutableBytes(of: &result.bounds) { raw in
                for index in 0..<min(count, 8) {
                    let packed = UInt64(captures[2 * index]) << 32 | UInt64(captures[2 * index + 1])
                    raw.storeBytes(of: packed, toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return result
        }
    }

    /// Runs the matcher with the trailing-slash policy.
    @inline(__always)
    func match(
        _ path: UnsafePointer<UInt8>, start: Int, end: Int, scratch: UnsafeMutablePointer<UInt8>?,
        captures: UnsafeMutablePointer<Int>
    ) -> Int {
        let found = tables.match(
            MatcherTables.Lookup(path: path, end: end, scratch: scratch, captures: captures), start: start)
        if found >= 0 || found == MatcherTables.needsScratch || strictTrailingSlash || end <= start
            || path[end - 1] != 0x2F
        {
            return found
        }
        return tables.match(
            MatcherTables.Lookup(path: path, end: end - 1, scratch: scratch, captures: captures), start: start)
    }
}

/// A few byte strings in raw memory, for comparisons that neither allocate nor retain.
struct ByteStrings: @unchecked Sendable {
    // @unchecked: read-only memory owned (and freed) by a `RouterCore`.
    let bytes: UnsafeMutableBufferPointer<UInt8>
    let ends: UnsafeMutableBufferPointer<Int>

    init(_ strings: [String]) {
        let joined = strings.flatMap { Array($0.utf8) }
        bytes = .allocate(capacity: max(joined.count, 1))
        _ = bytes.initialize(from: joined)
        var end = 0
        ends = .allocate(capacity: max(strings.count, 1))
        for (index, string) in strings.enumerated() {
            end += string.utf8.count
            ends[index] = end
        }
        count = strings.count
    }

    let count: Int

    func deallocate() {
        bytes.deallocate()
        ends.deallocate()
    }

    /// Whether one of the strings equals `candidate`.
    @inline(__always)
    func contains(_ candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        firstIndex(of: candidate) != nil
    }

    /// The position of the string equal to `candidate`, if any.
    @inline(__always)
    func firstIndex(of candidate: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = 0
        for index in 0..<count {
            let end = ends[index]
            if end - start == candidate.count
                && (candidate.count == 0
                    || memoryEqual(bytes.baseAddress! + start, candidate.baseAddress!, candidate.count))
            {
                return index
            }
            start = end
        }
        return nil
    }
}
