extension Router {
    /// Resolves a URL: an app-scheme URL (its authority routes as the first path segment) or a
    /// universal link on an allowed https host.
    ///
    /// - Parameter url: The URL as received.
    /// - Returns: The destination; the fallback when no route matches; or a refusal for
    ///   invalid URLs, other schemes, credentials, hosts not on the allow-list and hostile values.
    public func resolve(url: String) -> Resolution {
        do {
            let core = Unmanaged.passUnretained(self.core)
            return try URLCore.withParsed(url, maxLength: core._withUnsafeGuaranteedRef { $0.maxURLLength }) {
                bytes, layout in
                Router(unretainedCore: core).resolveParsed(bytes, layout)
            }
        } catch {
            return .refused(Refusal(code: error.code == .tooLong ? .tooLong : .invalidURL, message: error.message))
        }
    }

    /// Resolves an open-intent target.
    ///
    /// - Parameters:
    ///   - entityType: The entity type, such as `album`.
    ///   - id: The entity id, as the route's id parameter holds it.
    /// - Returns: The entity's destination, or a refusal for unknown types and invalid ids.
    public func resolve(entityType: String, id: String) -> Resolution {
        guard let index = core.entityRouteIndex(entityType) else {
            return .refused(Refusal(code: .unknownEntityType, message: "no route opens entity type \"\(entityType)\""))
        }
        let info = core.infos[index]
        let idParameter = info.pathParameters[0]
        if let problem = Link.valueProblem(id, type: idParameter.type, inPath: true) {
            return .refused(
                Refusal(code: .invalidParameter, message: "id \(id.debugDescription) of \"\(entityType)\" \(problem)"))
        }
        var parameters = Destination.Parameters(info: info)
        parameters.append(slot: 0, value: id)
        for (position, spec) in info.query.enumerated() {
            if let value = spec.defaultValue {
                parameters.append(slot: info.pathParameterCount + position, value: value)
            }
        }
        return .destination(Destination(parameters: parameters))
    }

    /// Where the routing path of a parsed URL lies, or why the URL is refused.
    func routingPath(_ bytes: UnsafeBufferPointer<UInt8>, _ layout: URLLayout) -> Result<Range<Int>, Refusal> {
        let scheme = UnsafeBufferPointer(rebasing: bytes[0..<layout.schemeEnd])
        let isApp = layout.special == nil && scheme.count > 0 && schemes.contains(scheme)
        if !isApp && layout.special != .https {
            return .failure(
                Refusal(
                    code: .forbiddenScheme,
                    message: "scheme \"\(String(decoding: scheme, as: UTF8.self))\" is not allowed"))
        }
        if layout.hasCredentials {
            return .failure(Refusal(code: .credentials, message: "URLs with credentials are refused"))
        }
        if isApp {
            if layout.port >= 0 { return .failure(Refusal(code: .invalidURL, message: "an app URL has no port")) }
            if layout.opaquePath {
                return .failure(Refusal(code: .invalidURL, message: "an app URL needs \"//\" after the scheme"))
            }
            if layout.hasHost { return .success(layout.hostStart..<layout.pathEnd) }
            return .success(layout.pathStart + 1..<layout.pathEnd)
        }
        let host = UnsafeBufferPointer(rebasing: bytes[layout.hostStart..<layout.hostEnd])
        var hostText: String { String(decoding: host, as: UTF8.self) }
        guard host.count > 0 && hosts.contains(host) else {
            return .failure(
                Refusal(code: .hostNotAllowed, message: "host \"\(hostText)\" is not an allowed universal-link host"))
        }
        if layout.port >= 0 {
            return .failure(
                Refusal(code: .hostNotAllowed, message: "port \(layout.port) is not allowed for host \"\(hostText)\""))
        }
        return .success(layout.pathStart + 1..<layout.pathEnd)
    }

    /// Refuses paths whose decoded segments are not safe to hand to a screen.
    func checkPath(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scratch: UnsafeMutablePointer<UInt8>)
        -> Refusal?
    {
        var segmentStart = range.lowerBound
        var encoded = false
        var index = range.lowerBound
        while index <= range.upperBound {
            if index == range.upperBound || bytes[index] == 0x2F {
                if encoded {
                    if let problem = checkDecoded(bytes, segmentStart..<index, form: false, scratch: scratch) {
                        return Refusal(code: problem.0, message: "path segment \(problem.1)")
                    }
                }
                segmentStart = index + 1
                encoded = false
            } else if bytes[index] == 0x25 {
                encoded = true
            }
            index += 1
        }
        return nil
    }

    /// Decodes `range` into `scratch` (same offsets) and checks it; returns a code and a reason.
    func checkDecoded(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, form: Bool, scratch: UnsafeMutablePointer<UInt8>
    ) -> (Refusal.Code, String)? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == 0x25 {
                guard index + 2 < range.upperBound, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil
                else { return (.invalidURL, "has an invalid percent-encoding") }
                index += 3
            } else {
                index += 1
            }
        }
        let output = scratch + range.lowerBound
        let length = decode(bytes, range, form: form, into: output)
        let decoded = UnsafeBufferPointer(start: output, count: length)
        if !isValidUTF8(decoded) { return (.invalidParameter, "is not UTF-8 once decoded") }
        if decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return (.invalidParameter, "contains control characters")
        }
        if !form {
            // "..", "../x", "x/..", "x/../y", with "/" or "\" as the separator.
            var pieceStart = 0
            for position in 0...length {
                if position == length || decoded[position] == 0x2F || decoded[position] == 0x5C {
                    if position - pieceStart == 2 && decoded[pieceStart] == 0x2E && decoded[pieceStart + 1] == 0x2E {
                        return (.invalidParameter, "contains a \"..\" segment once decoded")
                    }
                    pieceStart = position + 1
                }
            }
        }
        return nil
    }

    @inline(__always)
    func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, form: Bool, into output: UnsafeMutablePointer<UInt8>
    )
        -> Int
    {
        let start = bytes.baseAddress! + range.lowerBound
        if !form { return percentDecode(start, range.count, into: output) }
        // '+' is a space in form encoding; a decoded "%2B" must stay '+', so map before decoding.
        var read = 0
        var written = 0
        while read < range.count {
            let byte = start[read]
            if byte == 0x25 && read + 2 < range.count, let high = hexValue(start[read + 1]),
                let low = hexValue(start[read + 2])
            {
                output[written] = high << 4 | low
                read += 3
            } else {
                output[written] = byte == 0x2B ? 0x20 : byte
                read += 1
            }
            written += 1
        }
        return written
    }

    func resolveParsed(_ bytes: UnsafeBufferPointer<UInt8>, _ layout: URLLayout) -> Resolution {
        let range: Range<Int>
        switch routingPath(bytes, layout) {
        case .success(let path): range = path
        case .failure(let refusal): return .refused(refusal)
        }
        let captureCount = 2 * core.tables.maxCaptures + 2
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: captureCount) { captures in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1) { scratchBuffer in
                let scratch = scratchBuffer.baseAddress!
                if layout.hostOrPathHasPercent, let refusal = checkPath(bytes, range, scratch: scratch) {
                    return .refused(refusal)
                }
                let route = core.match(
                    bytes.baseAddress!, start: range.lowerBound, end: range.upperBound,
                    scratch: layout.hostOrPathHasPercent ? scratch : nil,
                    captures: captures.baseAddress!)
                if route < 0 { return fallback(bytes, layout, range, scratch: scratch) }
                let info = core.infos[route]
                var parameters = Destination.Parameters(info: info)
                for position in 0..<info.pathParameterCount {
                    let start = captures[2 * position]
                    let end = captures[2 * position + 1]
                    let value: UnsafeBufferPointer<UInt8>
                    if layout.hostOrPathHasPercent {
                        let length = decode(bytes, start..<end, form: false, into: scratch + start)
                        value = UnsafeBufferPointer(start: scratch + start, count: length)
                    } else {
                        value = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    }
                    parameters.append(slot: position, bytes: value)
                }
                if !info.query.isEmpty {
                    if let refusal = appendQuery(info, bytes, layout, scratch: scratch, to: &parameters) {
                        return .refused(refusal)
                    }
                }
                return .destination(Destination(parameters: parameters))
            }
        }
    }

    /// The first `name=value` pair of the query with this name, as a value range.
    func queryValue(
        _ name: String, _ bytes: UnsafeBufferPointer<UInt8>, _ layout: URLLayout, scratch: UnsafeMutablePointer<UInt8>
    )
        -> Range<Int>?
    {
        guard layout.queryStart >= 0 else { return nil }
        var name = name
        return name.withUTF8 { wanted -> Range<Int>? in
            var pairStart = layout.queryStart
            while pairStart <= layout.queryEnd {
                var pairEnd = pairStart
                while pairEnd < layout.queryEnd && bytes[pairEnd] != 0x26 { pairEnd += 1 }
                var equals = pairStart
                while equals < pairEnd && bytes[equals] != 0x3D { equals += 1 }
                let length = decode(bytes, pairStart..<equals, form: true, into: scratch + pairStart)
                if bytesEqual(UnsafeBufferPointer(start: scratch + pairStart, count: length), wanted) {
                    return min(equals + 1, pairEnd)..<pairEnd
                }
                pairStart = pairEnd + 1
            }
            return nil
        }
    }

    func appendQuery(
        _ info: RouteInfo, _ bytes: UnsafeBufferPointer<UInt8>, _ layout: URLLayout,
        scratch: UnsafeMutablePointer<UInt8>,
        to parameters: inout Destination.Parameters
    ) -> Refusal? {
        for position in 0..<info.query.count {
            let slot = info.pathParameterCount + position
            if let range = queryValue(info.query[position].name, bytes, layout, scratch: scratch) {
                var escaped = false
                for index in range where bytes[index] == 0x25 {
                    escaped = true
                    break
                }
                // Without escapes the bytes are printable ASCII (the parser encoded the rest).
                if escaped, let problem = checkDecoded(bytes, range, form: true, scratch: scratch) {
                    return Refusal(
                        code: problem.0, message: "query parameter \"\(info.query[position].name)\" \(problem.1)")
                }
                let decoded = UnsafeBufferPointer(
                    start: scratch + range.lowerBound,
                    count: decode(bytes, range, form: true, into: scratch + range.lowerBound))
                // A value that is not of its type counts as absent.
                if info.query[position].type.accepts(decoded) {
                    parameters.append(slot: slot, bytes: decoded)
                    continue
                }
            }
            if let value = info.query[position].defaultValue { parameters.append(slot: slot, value: value) }
        }
        return nil
    }

    func fallback(
        _ bytes: UnsafeBufferPointer<UInt8>, _ layout: URLLayout, _ range: Range<Int>,
        scratch: UnsafeMutablePointer<UInt8>
    )
        -> Resolution
    {
        let length = decode(bytes, range, form: false, into: scratch)
        let path = "/" + String(decoding: UnsafeBufferPointer(start: scratch, count: length), as: UTF8.self)
        guard let info = fallback else {
            return .refused(Refusal(code: .notFound, message: "no route matches \"\(path)\""))
        }
        var query = Destination.Parameters(info: info)
        if let refusal = appendQuery(info, bytes, layout, scratch: scratch, to: &query) {
            return .refused(refusal)
        }
        // The fallback parameter, when the query leaves it empty, carries the path's words.
        guard let name = table.fallbackParameter,
            !query.contains(where: { $0.name == name && !$0.value.isEmpty }),
            let fallbackSlot = info.query.firstIndex(where: { $0.name == name }).map({ info.pathParameterCount + $0 })
        else {
            return .fallback(Destination(parameters: query, fallbackReason: "no route matches \"\(path)\""))
        }
        let words = path.split(separator: "/").joined(separator: " ")
        var parameters = Destination.Parameters(info: info)
        var placed = false
        for position in 0..<query.count {
            let slot = query.slot(at: position)
            if slot == fallbackSlot { continue }
            if !placed && slot > fallbackSlot {
                parameters.append(slot: fallbackSlot, value: words)
                placed = true
            }
            parameters.append(slot: slot, value: query.value(at: position))
        }
        if !placed { parameters.append(slot: fallbackSlot, value: words) }
        return .fallback(Destination(parameters: parameters, fallbackReason: "no route matches \"\(path)\""))
    }
}
