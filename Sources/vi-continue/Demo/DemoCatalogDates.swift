import Foundation
import SearchSession

/// Keeps the bundled demo's story true whatever year it runs in: its concerts are dated from a
/// year before to a year after the day it was made, so "upcoming concerts" would run out a year
/// later. Run in a later year, the demo catalog is served from a copy with every date moved on by
/// whole years, so the concerts lie around today as they did then.
///
/// Whole years, not days: the copy's bytes then stay the same all year, and a catalog file with
/// other bytes starts a new baseline (see the README's "Catalog writes"), so a demo server's
/// catalog writes last until the year turns. The month and day of each date are kept.
enum DemoCatalogDates {
    /// The year `Examples/demo/catalog.jsonl` was generated around (Examples/demo/gen-catalog.py
    /// dates its concerts from 2025 to 2027).
    static let referenceYear = 2026

    /// The catalog file to serve for `path`: a dated copy in `directory` when `path` is the
    /// bundled demo's catalog and `today` is past its reference year, else `path` itself.
    /// `directory` is asked for only when a copy is needed.
    ///
    /// - Throws: When the copy cannot be written (the message names the file).
    static func servedPath(
        for path: String, demoDirectory: String?, today: CalendarDay, copyInto directory: () throws -> String
    ) throws -> String {
        let years = today.year - referenceYear
        guard years > 0, let demoDirectory, isSameFile(path, demoDirectory + "/catalog.jsonl") else { return path }
        let original = try String(contentsOfFile: path, encoding: .utf8)
        // The copy lives elsewhere: its pictures are named by absolute paths into the demo.
        let pictures = absolutePath(demoDirectory) + "/"
        let moved = movingDates(in: original, byYears: years)
            .replacingOccurrences(of: #""image_file": ""#, with: #""image_file": "\#(pictures)"#)
        let copy = try directory() + "/demo-catalog-\(referenceYear + years).jsonl"
        // The same year writes the same bytes: an existing copy is left alone.
        if (try? String(contentsOfFile: copy, encoding: .utf8)) != moved {
            try moved.write(toFile: copy, atomically: true, encoding: .utf8)
        }
        return copy
    }

    /// `text` with every `YYYY-MM-DD` date moved by `years` (29 February to the 28th when the new
    /// year has none).
    static func movingDates(in text: String, byYears years: Int) -> String {
        var bytes = Array(text.utf8)
        func isDigit(_ at: Int) -> Bool { at >= 0 && at < bytes.count && (48...57).contains(bytes[at]) }
        var i = 0
        while i + 10 <= bytes.count {
            // Ten bytes that read as a date, with no digit right before or after them.
            guard !isDigit(i - 1), !isDigit(i + 10), isDigit(i),
                let date = CalendarDay(String(decoding: bytes[i..<i + 10], as: UTF8.self))
            else {
                i += 1
                continue
            }
            let year = date.year + years
            let moved =
                CalendarDay(String(format: "%04d-%02d-%02d", year, date.month, date.day))
                ?? CalendarDay(String(format: "%04d-%02d-28", year, date.month))!
            bytes.replaceSubrange(i..<i + 10, with: Array(moved.description.utf8))
            i += 10
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func absolutePath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
