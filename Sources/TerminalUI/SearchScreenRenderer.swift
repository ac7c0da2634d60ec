import SearchAPI

/// Draws a ``SearchScreenState`` for a terminal of a given size: pure, state in, lines out.
///
/// Layout: a title bar; the label chips; a notice line (what was relaxed, or the filters
/// applied); the results pane on the left and the filter pane (chips and facet values with
/// counts) on the right; a status line; the key help. Opening a result draws its destination in
/// a box over the panes.
public enum SearchScreenRenderer {
    /// Below this the screen only asks for a bigger window.
    public static let minimumSize = TerminalSize(rows: 10, columns: 50)

    /// The screen as one string that repaints every line in place (no flicker from clearing).
    public static func frame(_ state: SearchScreenState, size: TerminalSize) -> String {
        var out = ""
        for (index, line) in lines(state, size: size).enumerated() {
            out += ANSI.moveTo(row: index + 1, column: 1) + line + ANSI.reset + ANSI.clearToEndOfLine
        }
        return out
    }

    /// The screen's lines, exactly `size.rows` of them, each `size.columns` cells wide once its
    /// escape sequences are stripped.
    public static func lines(_ state: SearchScreenState, size: TerminalSize) -> [String] {
        let width = size.columns
        guard size.rows >= minimumSize.rows, width >= minimumSize.columns else {
            var lines = [String](repeating: fit("", width), count: max(size.rows, 1))
            lines[0] = fit("Make the window at least \(minimumSize.columns)×\(minimumSize.rows). q quits.", width)
            return lines
        }
        let panel = min(40, max(26, width / 3))
        let left = width - panel - 1
        let bodyRows = size.rows - 6

        var lines: [String] = []
        lines.append(ANSI.reverse + titleBar(state, width: width) + ANSI.reset)
        lines.append(chipsLine(state, width: width))
        lines.append(ANSI.yellow + fit(notice(state), width) + ANSI.reset)
        lines.append(
            ANSI.dim + fit("── Results ", left, pad: "─") + "┬" + fit("── Filters ", panel, pad: "─") + ANSI.reset)
        let resultLines = resultsPane(state, width: left, rows: bodyRows)
        let filterLines = filterPane(state, width: panel, rows: bodyRows)
        for row in 0..<bodyRows {
            lines.append(resultLines[row] + ANSI.reset + ANSI.dim + "│" + ANSI.reset + filterLines[row] + ANSI.reset)
        }
        lines.append(statusLine(state, width: width))
        lines.append(ANSI.reverse + fit(help(state), width) + ANSI.reset)
        if let opened = state.opened { overlay(opened, on: &lines, width: width) }
        return lines
    }

    // MARK: - Parts

    private static func titleBar(_ state: SearchScreenState, width: Int) -> String {
        let query = state.server.queryText.isEmpty ? "" : " “\(state.server.queryText)”"
        let leftText = " vi-continue · search" + query
        let rightText = "\(state.server.totalHits) results · sort: \(sortName(state.refinement.sort)) "
        let gap = width - leftText.count - rightText.count
        return gap >= 1 ? leftText + String(repeating: " ", count: gap) + rightText : fit(leftText, width)
    }

    private static func chipsLine(_ state: SearchScreenState, width: Int) -> String {
        guard !state.server.chips.isEmpty else { return fit(" Labels: (none)", width) }
        var text = " Labels:"
        var styled = " Labels:"
        for chip in state.server.chips {
            let on = !state.refinement.disabledLabels.contains(chip.text)
            let piece = " " + (on ? "●" : "○") + " " + chip.text + " "
            text += " " + piece
            styled += " " + (on ? ANSI.green + ANSI.bold : ANSI.dim) + piece + ANSI.reset
        }
        return text.count <= width ? styled + String(repeating: " ", count: width - text.count) : fit(text, width)
    }

    private static func notice(_ state: SearchScreenState) -> String {
        if !state.server.relaxations.isEmpty {
            return " " + state.server.relaxations.map(\.explanation).joined(separator: " ")
        }
        let applied = appliedDescription(state)
        return applied.isEmpty ? "" : " Filters: " + applied
    }

    /// The refinement in words: `type album · category Music/Rock · city Vienna`.
    static func appliedDescription(_ state: SearchScreenState) -> String {
        let r = state.refinement
        var parts: [String] = []
        if !r.entityTypes.isEmpty { parts.append("type " + r.entityTypes.joined(separator: "|")) }
        if !r.categories.isEmpty { parts.append("category " + r.categories.joined(separator: "|")) }
        for (name, values) in r.values.sorted(by: { $0.key < $1.key }) {
            parts.append(name + " " + values.joined(separator: "|"))
        }
        for (name, bucket) in r.ranges.sorted(by: { $0.key < $1.key }) { parts.append(name + " " + bucket) }
        return parts.joined(separator: " · ")
    }

    private static func resultsPane(_ state: SearchScreenState, width: Int, rows: Int) -> [String] {
        var lines: [String] = []
        if state.results.isEmpty {
            lines.append(fit(state.isLoading ? " Searching…" : " Nothing matched.", width))
            if !state.server.browseCategories.isEmpty {
                lines.append(fit(" Browse the catalog instead:", width))
                for category in state.server.browseCategories {
                    lines.append(fit("   \(category.value) (\(category.count))", width))
                }
            }
        } else {
            let start = windowStart(cursor: state.resultCursor, count: state.results.count, rows: rows)
            for index in start..<min(state.results.count, start + rows) {
                lines.append(resultLine(state.results[index], index: index, state: state, width: width))
            }
        }
        while lines.count < rows { lines.append(String(repeating: " ", count: width)) }
        return Array(lines.prefix(rows))
    }

    private static func resultLine(_ result: QueryResult, index: Int, state: SearchScreenState, width: Int) -> String {
        let isCursor = index == state.resultCursor
        let marker = isCursor ? "▸" : " "
        let type = fit(result.entity?.type ?? "?", 9)
        let related = result.match == .related ? " ↳" : ""
        let head = " \(marker) " + type + " "
        let titleWidth = max(0, width - head.count)
        let titleText = fit(result.title + related, min(titleWidth, max(result.title.count + related.count, 0)))
        let subtitleWidth = max(0, titleWidth - titleText.count - 3)
        let subtitle = subtitleWidth > 1 && !result.subtitle.isEmpty ? "  " + fit(result.subtitle, subtitleWidth) : ""
        let plain = head + titleText + subtitle
        let padding = String(repeating: " ", count: max(0, width - plain.count))
        if isCursor && state.focus == .results {
            return ANSI.reverse + fit(plain, width) + ANSI.reset
        }
        return " \(marker) " + ANSI.cyan + type + ANSI.reset + " " + ANSI.bold + titleText + ANSI.reset + ANSI.dim
            + subtitle + ANSI.reset + padding
    }

    private static func filterPane(_ state: SearchScreenState, width: Int, rows: Int) -> [String] {
        // Headers and rows together, remembering which line holds which toggleable row.
        var entries: [(text: String, row: Int?)] = []
        var rowIndex = 0
        if !state.server.chips.isEmpty {
            entries.append((ANSI.bold + fit(" LABELS", width) + ANSI.reset, nil))
            for chip in state.server.chips {
                let on = !state.refinement.disabledLabels.contains(chip.text)
                entries.append((valueLine(chip.text, count: nil, on: on, width: width), rowIndex))
                rowIndex += 1
            }
        }
        for facet in state.server.facets {
            entries.append((ANSI.bold + fit(" " + facet.name.uppercased(), width) + ANSI.reset, nil))
            for value in facet.values {
                entries.append((valueLine(value.value, count: value.count, on: value.selected, width: width), rowIndex))
                rowIndex += 1
            }
        }
        let cursorLine = entries.firstIndex { $0.row == state.filterCursor } ?? 0
        let start = windowStart(cursor: cursorLine, count: entries.count, rows: rows)
        var lines: [String] = []
        for entry in entries[start..<min(entries.count, start + rows)] {
            if entry.row == state.filterCursor && state.focus == .filters {
                lines.append(ANSI.reverse + ANSI.strip(entry.text) + ANSI.reset)
            } else {
                lines.append(entry.text)
            }
        }
        while lines.count < rows { lines.append(String(repeating: " ", count: width)) }
        return lines
    }

    private static func valueLine(_ value: String, count: UInt64?, on: Bool, width: Int) -> String {
        let box = on ? " [x] " : " [ ] "
        let countText = count.map { " \($0) " } ?? " "
        let name = fit(value, max(0, width - box.count - countText.count))
        return box + name + countText
    }

    private static func statusLine(_ state: SearchScreenState, width: Int) -> String {
        if let message = state.message {
            let colour = message.hasPrefix("error") ? ANSI.red : ANSI.yellow
            return colour + fit(" " + message, width) + ANSI.reset
        }
        if state.isLoading { return fit(" Searching…", width) }
        let more = state.server.nextPageToken.isEmpty ? "all shown" : "m loads more"
        return fit(" Showing \(state.results.count) of \(state.server.totalHits) · \(more)", width)
    }

    private static func help(_ state: SearchScreenState) -> String {
        if state.opened != nil { return " Esc back  q quit" }
        let toggle = state.focus == .filters ? "Space toggle" : "Enter open"
        return " ↑↓ move  Tab results/filters  \(toggle)  s sort  m more  c clear  q quit"
    }

    private static func overlay(_ opened: SearchScreenState.Opened, on lines: inout [String], width: Int) {
        let destination = opened.destination
        var body = [
            "Open “\(opened.title)”", "",
            "screen  \(destination.screen)",
            "route   \(destination.route.isEmpty ? "-" : destination.route)",
        ]
        for param in destination.params { body.append("param   \(param.name) = \(paramValue(param))") }
        if let entity = destination.entity { body.append("entity  \(entity.type)/\(entity.id)") }
        body.append("URL     \(destination.canonicalURL)")
        if destination.fallback { body.append("fallback: \(destination.fallbackReason)") }
        body += ["", "Esc to go back"]
        let boxWidth = min(width - 4, max(40, (body.map(\.count).max() ?? 0) + 4))
        let top = max(1, (lines.count - body.count - 2) / 2)
        let leftMargin = (width - boxWidth) / 2
        let rows =
            ["┌" + String(repeating: "─", count: boxWidth - 2) + "┐"]
            + body.map { "│ " + fit($0, boxWidth - 4) + " │" }
            + ["└" + String(repeating: "─", count: boxWidth - 2) + "┘"]
        for (offset, row) in rows.enumerated() where top + offset < lines.count - 1 {
            let plain = ANSI.strip(lines[top + offset])
            let prefix = String(plain.prefix(leftMargin))
            let suffix = String(plain.dropFirst(leftMargin + boxWidth))
            lines[top + offset] = prefix + ANSI.bold + row + ANSI.reset + suffix
        }
    }

    // MARK: - Helpers

    /// The first index to show so that `cursor` stays on screen, near the middle when scrolling.
    static func windowStart(cursor: Int, count: Int, rows: Int) -> Int {
        guard count > rows else { return 0 }
        return max(0, min(cursor - rows / 2, count - rows))
    }

    /// `text` cut (with an ellipsis) or padded to exactly `width` characters.
    public static func fit(_ text: String, _ width: Int, pad: Character = " ") -> String {
        guard width > 0 else { return "" }
        let clean = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
        if clean.count > width { return String(clean.prefix(width - 1)) + "…" }
        return String(clean) + String(repeating: pad, count: width - clean.count)
    }

    static func sortName(_ sort: SearchScreenState.SortChoice) -> String {
        switch sort {
        case .relevance: "relevance"
        case .title: "title"
        case .attribute(let name, let descending): name + (descending ? " ↓" : " ↑")
        }
    }

    private static func paramValue(_ param: Param) -> String {
        switch param.value {
        case .intValue(let number): "\(number)"
        case .stringValue(let text): text
        case nil: ""
        }
    }
}
