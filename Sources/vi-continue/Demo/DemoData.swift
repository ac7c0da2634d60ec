/// Finds the bundled demo catalog and route table (`Examples/demo/`) when no path is given.
///
/// Looked for, in order: `$VI_CONTINUE_DEMO_DIR`; `Examples/demo` under the working directory;
/// next to the executable's build folder (`.build/<config>/vi-continue` → `Examples/demo`); and
/// an installed `share/vi-continue/demo` beside the executable's `bin/`.
enum DemoData {
    static func directory() -> String? {
        BundledDirectory.find(
            "Examples/demo", installedName: "demo", variable: "VI_CONTINUE_DEMO_DIR",
            required: ["catalog.jsonl", "routes.json"])
    }
}
