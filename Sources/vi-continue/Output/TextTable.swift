/// A plain text table with aligned columns, for the human-readable output of client commands.
///
/// Columns are as wide as their widest cell (by characters, which is what a terminal shows for
/// the Latin and symbol text our catalogs hold); the last column is never padded, so lines carry
/// no trailing spaces. Cells are kept on one line: newlines and tabs become spaces.
struct TextTable {
    /// The column titles, printed upper-cased in the first row.
    var headers: [String]
    /// The rows; a row shorter than the headers is padded with empty cells.
    var rows: [[String]] = []
    /// Cells longer than this are cut with `…`, so one long subtitle does not push every row
    /// past the edge of the terminal. The last column (links, reasons) is never cut: it pushes
    /// nothing, and people copy from it.
    var maximumCellWidth = 48

    init(_ headers: String...) {
        self.headers = headers
    }

    init(headers: [String]) {
        self.headers = headers
    }

    /// Appends a row.
    mutating func append(_ cells: String...) {
        rows.append(cells)
    }

    /// The table as lines of text, headers first; no trailing newline.
    var rendered: String {
        let last = headers.count - 1
        let all =
            [headers.map { $0.uppercased() }]
            + rows.map { row in row.enumerated().map { clean($1, truncating: $0 != last) } }
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.prefix(headers.count).enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            var line = ""
            for column in headers.indices {
                let cell = column < row.count ? row[column] : ""
                if column == headers.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    private func clean(_ cell: String, truncating: Bool) -> String {
        let flat = String(cell.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : $0 })
        return truncating && flat.count > maximumCellWidth ? String(flat.prefix(maximumCellWidth - 1)) + "…" : flat
    }
}

/// Key–value lines with the keys aligned, for one record (a destination, a link, a URL).
struct FieldList {
    private var fields: [(String, String)] = []

    /// Appends a field; empty values are shown as `-` so the reader sees the field is empty.
    mutating func append(_ name: String, _ value: String) {
        fields.append((name, value.isEmpty ? "-" : value))
    }

    var rendered: String {
        let width = fields.map(\.0.count).max() ?? 0
        return fields.map { name, value in
            name + ":" + String(repeating: " ", count: width - name.count + 2) + value
        }.joined(separator: "\n")
    }
}
