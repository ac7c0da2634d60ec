/// One key press, as decoded from the terminal's bytes.
public enum Key: Hashable, Sendable {
    /// A printable character.
    case character(Character)
    /// A control key, by its letter: `.control("c")` for Ctrl-C.
    case control(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case enter, tab, backTab, backspace, delete, escape
    /// An escape sequence we do not know, kept for diagnosis.
    case unknown([UInt8])
}
