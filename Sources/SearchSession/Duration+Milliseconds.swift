extension Duration {
    /// The duration in whole milliseconds, rounded toward zero: the one conversion the project
    /// uses for time to live, timeouts and back-off in messages.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
