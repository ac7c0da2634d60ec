/// The few ANSI/xterm control sequences the search screen uses.
public enum ANSI {
    public static let escape = "\u{1B}["
    /// Switches to the alternate screen, leaving the shell's scrollback untouched.
    public static let enterAlternateScreen = escape + "?1049h"
    /// Back to the normal screen, as it was before.
    public static let leaveAlternateScreen = escape + "?1049l"
    public static let hideCursor = escape + "?25l"
    public static let showCursor = escape + "?25h"
    public static let clearScreen = escape + "2J"
    /// Clears from the cursor to the end of the line.
    public static let clearToEndOfLine = escape + "K"
    public static let reset = escape + "0m"
    public static let bold = escape + "1m"
    public static let dim = escape + "2m"
    public static let reverse = escape + "7m"
    public static let underline = escape + "4m"
    public static let cyan = escape + "36m"
    public static let yellow = escape + "33m"
    public static let green = escape + "32m"
    public static let red = escape + "31m"

    /// Moves the cursor to a 1-based row and column.
    public static func moveTo(row: Int, column: Int) -> String {
        escape + "\(row);\(column)H"
    }

    /// `text` without any CSI sequences: what the terminal shows.
    public static func strip(_ text: String) -> String {
        var out = ""
        var inSequence = false
        var sawEscape = false
        for scalar in text.unicodeScalars {
            if inSequence {
                if (0x40...0x7E).contains(scalar.value) { inSequence = false }
                continue
            }
            if sawEscape {
                sawEscape = false
                if scalar == "[" {
                    inSequence = true
                    continue
                }
            }
            if scalar == "\u{1B}" {
                sawEscape = true
                continue
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
