// Measures DeepLinkRouter on the shared route sets (path lookup, as httprouter is measured) and
// on full URL strings → typed destinations for the demo table. Release build, warm-up, five
// runs timed in process CPU time, median reported; heap allocations per operation counted by interposing malloc.
//
// Usage: RouterBench NAME=ROUTES[,REQUESTS] ... [--full DEMO_ROUTES_JSON]
// Output: "NAME ns-per-lookup allocs-per-lookup" lines, then "full-url", "url-parse", "link" (entity →
// canonical URL string), "link-pair" (both links) and "demo-lookup" lines of "ns allocs".
import CAllocCounter
import DeepLinkRouter
import Foundation

struct Request {
    var method: String
    var path: String
}

func readRoutes(_ path: String) -> [Request] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        fatalError("cannot read \(path)")
    }
    return text.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ")
        if fields.isEmpty { return nil }
        if fields.count == 2 { return Request(method: String(fields[0]), path: String(fields[1])) }
        return Request(method: "GET", path: String(fields[0]))
    }
}

/// One router per method, like httprouter's per-method trees.
struct MethodRouters {
    var methods: [String] = []
    var routers: [Router] = []

    init(routes: [Request]) {
        var byMethod: [String: [Request]] = [:]
        for route in routes { byMethod[route.method, default: []].append(route) }
        // The busiest method first, so most requests find their tree at the first comparison.
        for (method, list) in byMethod.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }) {
            let entries = list.enumerated().map { index, route in
                // ":name" → "{name}", "*name" → "{*name}", "{p}" stays.
                let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                    if segment.hasPrefix(":") { return "{\(segment.dropFirst())}" }
                    if segment.hasPrefix("*") { return "{*\(segment.dropFirst())}" }
                    return String(segment)
                }.joined(separator: "/")
                return #"{"name":"r\#(index)","pattern":"\#(pattern)","screen":"s"}"#
            }
            let json = #"{"schemes":["bench"],"trailingSlash":"strict","routes":[\#(entries.joined(separator: ","))]}"#
            do {
                routers.append(Router(table: try RouteTable(jsonString: json)))
                methods.append(method)
            } catch {
                fatalError("\(method) table: \(error)")
            }
        }
    }

    @inline(__always)
    func lookup(method: String, path: String) -> Router.PathMatch? {
        var index = 0
        while index < methods.count {
            if methods[index] == method { return routers[index].lookup(path: path) }
            index += 1
        }
        return nil
    }
}

@inline(never)
func lookupAll(_ routers: MethodRouters, _ requests: [Request]) -> Int {
    // Borrow everything once so the loop itself does no reference counting.
    routers.routers.withUnsafeBufferPointer { routerList in
        routers.methods.withUnsafeBufferPointer { methods in
            requests.withUnsafeBufferPointer { requests in
                var sum = 0
                for index in 0..<requests.count {
                    var method = 0
                    while method < methods.count {
                        if methods[method] == requests[index].method {
                            if let match = routerList[method].lookup(path: requests[index].path) {
                                sum &+= match.routeIndex &+ match.parameterCount
                            }
                            break
                        }
                        method += 1
                    }
                }
                return sum
            }
        }
    }
}

@inline(never)
func resolveAll(_ router: Router, _ urls: [String]) -> Int {
    var sum = 0
    for url in urls {
        if case .destination(let destination) = router.resolve(url: url) {
            sum &+= destination.parameters.count &+ destination.screen.utf8.count
        }
    }
    return sum
}

@inline(never)
func linkAll(_ router: Router, _ entities: [(String, String)]) -> Int {
    var sum = 0
    for (type, id) in entities {
        if let url = try? router.canonicalURL(entityType: type, id: id) { sum &+= url.utf8.count }
    }
    return sum
}

@inline(never)
func linkPairAll(_ router: Router, _ entities: [(String, String)]) -> Int {
    var sum = 0
    for (type, id) in entities {
        if let link = try? router.link(entityType: type, id: id) { sum &+= link.canonicalURL.utf8.count }
    }
    return sum
}

/// The CPU time this process has used, in ns: on a shared, noisy machine it is steadier than
/// wall time, and the Go side measures the same.
func cpuTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1e9 + Double(spec.tv_nsec)
}

/// Median CPU ns per item over five runs of about 0.2 s each, and heap allocations per item.
func measure(items: Int, _ body: () -> Int) -> (ns: Double, allocs: Double) {
    var sink = 0
    if let fixedPasses {
        // Under callgrind: a fixed amount of work, so instructions divide into a per-item count.
        for _ in 0..<fixedPasses { sink &+= body() }
        return (Double(sink & 1), 0)
    }
    let warmUpStart = cpuTime()
    var iterations = 0
    while cpuTime() - warmUpStart < 1e8 {
        sink &+= body()
        iterations += 1
    }
    let perRun = max(1, iterations * 2)
    var samples: [Double] = []
    var allocs = 0.0
    for _ in 0..<5 {
        let before = alloc_counter_count()
        let start = cpuTime()
        for _ in 0..<perRun { sink &+= body() }
        let nanoseconds = cpuTime() - start
        let after = alloc_counter_count()
        samples.append(nanoseconds / Double(perRun * items))
        allocs = Double(after - before) / Double(perRun * items)
    }
    if sink == 42 { print("") }
    samples.sort()
    return (samples[2], allocs)
}

/// `--passes N`: run every body N times untimed (for instruction counts under callgrind).
let fixedPasses: Int? = CommandLine.arguments.firstIndex(of: "--passes").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
}
var arguments = Array(CommandLine.arguments.dropFirst())
if let index = arguments.firstIndex(of: "--passes"), index + 1 < arguments.count {
    arguments.removeSubrange(index...(index + 1))
}
let fullOnly = arguments.contains("--full-only")
arguments.removeAll { $0 == "--full-only" }
var demoPath: String? = nil
if let index = arguments.firstIndex(of: "--full"), index + 1 < arguments.count {
    demoPath = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
for argument in arguments {
    let parts = argument.split(separator: "=", maxSplits: 1)
    let files = parts[1].split(separator: ",")
    let routes = readRoutes(String(files[0]))
    let requests = files.count > 1 ? readRoutes(String(files[1])) : routes
    let routers = MethodRouters(routes: routes)
    for request in requests where routers.lookup(method: request.method, path: request.path) == nil {
        FileHandle.standardError.write(
            "\(parts[0]): no match for \(request.method) \(request.path)\n".data(using: .utf8)!)
    }
    let result = measure(items: requests.count) { lookupAll(routers, requests) }
    print(parts[0], String(format: "%.1f %.2f", result.ns, result.allocs))
}
if let demoPath {
    let router = Router(table: try RouteTable(contentsOfFile: demoPath))
    let urls = [
        "music://album/abbey-road?tab=credits",
        "https://music.example.com/concert/1969",
        "music://track/42?t=90",
        "music://playlist/0f8fad5b-d9cb-469f-a165-70867728950e",
        "https://www.music.example.com/artist/the-beatles",
        "music://album/abbey-road/track/7",
    ]
    for url in urls where router.resolve(url: url).destination == nil { fatalError("\(url) does not resolve") }
    let result = measure(items: urls.count) { resolveAll(router, urls) }
    print("full-url", String(format: "%.1f %.2f", result.ns, result.allocs))
    // The WHATWG parse alone, through the public parser (which also builds the href string).
    let parser = URLParser()
    let parse = measure(items: urls.count) {
        var sum = 0
        for url in urls { sum &+= (try? parser.parse(url))?.layoutEnd ?? 0 }
        return sum
    }
    print("url-parse", String(format: "%.1f %.2f", parse.ns, parse.allocs))
    // Reverse routing, as the server runs it for every query result: entity → canonical URL.
    let entities = [
        ("album", "abbey-road"), ("artist", "the-beatles"), ("concert", "1969"), ("track", "42"),
        ("playlist", "0f8fad5b-d9cb-469f-a165-70867728950e"),
    ]
    let link = measure(items: entities.count) { linkAll(router, entities) }
    print("link", String(format: "%.1f %.2f", link.ns, link.allocs))
    let linkPair = measure(items: entities.count) { linkPairAll(router, entities) }
    print("link-pair", String(format: "%.1f %.2f", linkPair.ns, linkPair.allocs))
    if fullOnly { exit(0) }
    // Path lookup alone on the demo table, for reference.
    let paths = ["/album/abbey-road", "/concert/1969", "/track/42", "/album/abbey-road/track/7"]
    let lookup = measure(items: paths.count) {
        var sum = 0
        for path in paths { sum &+= router.lookup(path: path)?.routeIndex ?? 0 }
        return sum
    }
    print("demo-lookup", String(format: "%.1f %.2f", lookup.ns, lookup.allocs))
}

extension ParsedURL {
    var layoutEnd: Int { href.utf8.count }
}
