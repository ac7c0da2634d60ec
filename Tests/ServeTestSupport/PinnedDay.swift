/// The day every test server and command takes for today (`VI_CONTINUE_TODAY`), so answers that
/// list upcoming concerts do not change with the date the tests run.
public let pinnedToday = "2026-12-01"
