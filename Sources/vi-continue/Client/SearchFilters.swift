import Foundation
import SearchAPI

/// The filter and sort flags of `search`, read into the request's attribute filters and sort.
enum SearchFilters {
    /// Equality filters (`NAME=VALUE`, values of one name merged into one any-of filter, in the
    /// order given) followed by range filters (`NAME=LO..HI`).
    ///
    /// - Throws: ``CommandFailure`` (usage) naming the flag value that does not fit.
    static func filters(equal: [String], ranges: [String]) throws(CommandFailure) -> [AttributeFilter] {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for item in equal {
            let (name, value) = try split(item, flag: "--attr", shape: "NAME=VALUE")
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        var filters = order.map { name in
            AttributeFilter(attribute: name, condition: .anyOf(ValueSet(values: values[name] ?? [])))
        }
        for item in ranges {
            let (name, bounds) = try split(item, flag: "--range", shape: "NAME=LO..HI")
            guard let dots = bounds.range(of: "..") else {
                throw .usage("--range '\(item)' is not NAME=LO..HI (either bound may be left out)")
            }
            let low = String(bounds[..<dots.lowerBound])
            let high = String(bounds[dots.upperBound...])
            var range = NumberRange()
            range.min = try bound(low, item)
            range.max = try bound(high, item)
            if range.min == nil, range.max == nil {
                throw .usage("--range '\(item)' needs at least one bound")
            }
            if let min = range.min, let max = range.max, min > max {
                throw .usage("--range '\(item)': \(low) is above \(high)")
            }
            filters.append(AttributeFilter(attribute: name, condition: .range(range)))
        }
        return filters
    }

    /// The sort `--sort` names: `relevance`, `title`, `title:desc`, `NAME`, `NAME:asc`, `NAME:desc`.
    static func sort(_ text: String) throws(CommandFailure) -> Sort {
        var name = text
        var descending = false
        if text.hasSuffix(":desc") {
            name = String(text.dropLast(5))
            descending = true
        } else if text.hasSuffix(":asc") {
            name = String(text.dropLast(4))
        }
        switch name {
        case "":
            throw .usage("--sort '\(text)' names no attribute (relevance, title, NAME:asc or NAME:desc)")
        case "relevance":
            if descending { throw .usage("--sort relevance is always best first; it takes no :desc") }
            return Sort(key: .relevance)
        case "title":
            return Sort(key: .title, descending: descending)
        default:
            return Sort(key: .attribute, attribute: name, descending: descending)
        }
    }

    private static func split(_ item: String, flag: String, shape: String) throws(CommandFailure) -> (String, String) {
        guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
            throw .usage("\(flag) '\(item)' is not \(shape)")
        }
        return (String(item[..<equals]), String(item[item.index(after: equals)...]))
    }

    private static func bound(_ text: String, _ item: String) throws(CommandFailure) -> Double? {
        if text.isEmpty { return nil }
        guard let number = Double(text), number.isFinite else {
            throw .usage("--range '\(item)': '\(text)' is not a number")
        }
        return number
    }
}
