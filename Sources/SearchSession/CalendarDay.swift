/// A day of the proleptic Gregorian calendar (UTC), as dates in a catalog write it: `YYYY-MM-DD`.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let daysSinceEpoch: Int64

    /// The day `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch: Int64) { self.daysSinceEpoch = daysSinceEpoch }

    /// The UTC day of a Unix time in milliseconds.
    public init(unixMs: Int64) {
        // Rounded down, also before 1970.
        let (quotient, remainder) = unixMs.quotientAndRemainder(dividingBy: 86_400_000)
        daysSinceEpoch = remainder < 0 ? quotient - 1 : quotient
    }

    /// The day a `YYYY-MM-DD` text names; `nil` for anything else (a month or day out of range
    /// included, e.g. 2026-02-30).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1
        else { return nil }
        let days = Self.days(year: year, month: month, day: day)
        self.init(daysSinceEpoch: days)
        // A day past the month's end comes out as another month.
        guard self.year == year, self.month == month else { return nil }
    }

    /// The year, month (1...12) and day of the month.
    public var year: Int { civil.year }
    public var month: Int { civil.month }
    public var day: Int { civil.day }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = civil
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    /// Howard Hinnant's days-from-civil algorithm, with its published variable names.
    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Int64(era * 146_097 + doe - 719_468)
    }

    /// Howard Hinnant's civil-from-days algorithm, with its variable names (see ``days(year:month:day:)``).
    private var civil: (year: Int, month: Int, day: Int) {
        let z = Int(daysSinceEpoch) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
