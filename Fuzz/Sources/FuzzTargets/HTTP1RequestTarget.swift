import HTTP1

/// The HTTP/1.1 request parser on any byte stream. The first byte picks a piece size; the stream
/// is fed whole once and in those pieces once, and both readings must agree: a parser whose
/// answer depends on how TCP split the bytes is a smuggling bug.
enum HTTP1RequestTarget {
    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = input.first else { return true }
        let piece = 1 + Int(first % 64)
        let stream = Array(input.dropFirst())
        var limits = HTTP1RequestParser.Limits()
        limits.body = 4096  // small, so fuzzed lengths reach the cap
        let whole = reading(stream, piece: stream.count, limits: limits)
        let pieces = reading(stream, piece: piece, limits: limits)
        guard whole == pieces else { return false }
        if case .success(let events) = whole {
            let body = events.reduce(0) { total, event in
                if case .body(let bytes) = event { return total + bytes.count }
                return total
            }
            guard body <= stream.count else { return false }
        }
        return true
    }

    /// The events (body pieces joined) or the refusal, and what the parser says after it.
    private static func reading(
        _ stream: [UInt8], piece: Int, limits: HTTP1RequestParser.Limits
    ) -> Result<[HTTP1RequestParser.Event], HTTP1ParseError> {
        var parser = HTTP1RequestParser(limits: limits)
        var events = [HTTP1RequestParser.Event]()
        var start = 0
        repeat {
            let end = min(stream.count, start + max(piece, 1))
            do {
                for event in try parser.feed(stream[start..<end]) {
                    if case .body(let more) = event, case .body(let earlier)? = events.last {
                        events[events.count - 1] = .body(earlier + more)
                    } else {
                        events.append(event)
                    }
                }
            } catch {
                // An error is final: the next feed must refuse with the same error.
                if (try? parser.feed([0x47])) != nil { fatalError("the parser read on after an error") }
                _ = "\(error)"
                return .failure(error)
            }
            start = end
        } while start < stream.count
        return .success(events)
    }
}
