import Testing

/// `vi-continue demo` run end to end, as CI runs it.
@Suite struct DemoCommandTests {
    static let headings = [
        "The service", "The system sheet: labels from the camera", "The system sheet: a picture",
        "A tap on the top result opens its screen", "\"More results\": the capture becomes a session",
        "A category, then a filter: the facet counts follow", "The next page",
        "Something the catalog does not know still opens a search",
    ]

    @Test("the demo tells every step, every check holds, and it exits 0")
    func demoRuns() throws {
        let result = try BuiltProgram.run(["demo"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for (number, heading) in Self.headings.enumerated() {
            #expect(result.stdout.contains("── \(number + 1). \(heading) "), "missing step: \(heading)")
        }
        #expect(!result.stdout.contains("✗"), "\(result.stdout)")
        #expect(result.stdout.contains("All steps behaved as described."))
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("   ✓ ") }.count >= 20)
    }

    @Test("demo --help describes the story")
    func help() throws {
        let result = try BuiltProgram.run(["demo", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Walk through a visual search continued in the app"))
        #expect(result.stdout.contains("EXAMPLES:"))
    }
}
