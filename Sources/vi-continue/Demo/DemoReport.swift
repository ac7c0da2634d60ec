/// How `vi-continue demo` prints: step headings, small tables and check marks, plain text.
struct DemoReport {
    /// The checks that failed, with their step.
    private(set) var failures: [String] = []
    private var step = 0
    private var stepTitle = ""

    /// Starts a numbered step with a heading.
    mutating func heading(_ title: String) {
        step += 1
        stepTitle = title
        let text = "── \(step). \(title) "
        print("\n" + text + String(repeating: "─", count: max(4, 78 - text.count)))
    }

    /// An indented line of explanation.
    func say(_ line: String) {
        print("   " + line)
    }

    /// Records whether what the step claims held.
    mutating func check(_ holds: Bool, _ claim: String) {
        print((holds ? "   ✓ " : "   ✗ ") + claim)
        if !holds { failures.append("step \(step) (\(stepTitle)): \(claim)") }
    }

    /// Records a step that could not run at all, with the error it hit.
    mutating func fail(_ error: any Error) {
        let text = "\(error)"
        print("   ✗ failed: " + text)
        failures.append("step \(step) (\(stepTitle)): \(text)")
    }

    /// Prints rows under a header, each column as wide as its widest cell (cut at `maxWidth`).
    func table(_ header: [String], _ rows: [[String]], maxWidth: Int = 34) {
        let cells = ([header] + rows).map { $0.map { Self.cut($0, to: maxWidth) } }
        var widths = [Int](repeating: 0, count: header.count)
        for row in cells {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        for (number, row) in cells.enumerated() {
            let line = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            print("   " + line.joined(separator: "  "))
            if number == 0 { print("   " + widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")) }
        }
    }

    /// `text` shortened to `width` characters with an ellipsis.
    static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}
