import Foundation
import Testing

/// The demo's story does not depend on the date it runs: whatever the day, the album "Lost Road"
/// surfaces its artist's upcoming concert, dated after that day.
@Suite struct DemoDatesTests {
    @Test(
        "the demo lists an upcoming concert whatever the day it runs",
        arguments: ["2026-12-01", "2027-12-31", "2028-02-29", "2031-06-15", "2040-12-31"])
    func upcomingConcertWhateverTheDay(today: String) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("vi-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let answer = try await CLI.run(
            ["query", "--catalog", "Examples/demo/catalog.jsonl", "--labels", "lost road", "--limit", "8", "--json"],
            environment: ["VI_CONTINUE_TODAY": today, "XDG_CACHE_HOME": cache.path])
        #expect(answer.status == 0, "\(answer.stderr)")
        let results = try #require(
            (try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any])?["results"]
                as? [[String: Any]])
        #expect(results.first?["title"] as? String == "Lost Road")
        let concerts = results.filter { $0["type"] as? String == "concert" }
        #expect(!concerts.isEmpty, "\(answer.stdout)")
        for concert in concerts {
            // The subtitle starts with the concert's date, "2027-10-03 · Paris".
            let date = String((concert["subtitle"] as? String ?? "").prefix(10))
            #expect(date >= today, "\(concert)")
        }
    }
}
