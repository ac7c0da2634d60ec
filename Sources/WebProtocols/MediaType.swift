extension StringProtocol {
    /// The text without spaces and tabs at either end (HTTP's optional whitespace).
    func trimmingSpaces() -> String {
        var trimmed = Substring(self)
        while trimmed.first == " " || trimmed.first == "\t" { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    var mediaType: String {
        (split(separator: ";", omittingEmptySubsequences: false).first ?? "").trimmingSpaces().lowercased()
    }
}
