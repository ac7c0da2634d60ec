#if canImport(Glibc)
    import Glibc
#endif

/// Finds the bundled demo catalog and route table (`Examples/demo/`) when no path is given.
///
/// Looked for, in order: `$VI_CONTINUE_DEMO_DIR`; `Examples/demo` under the working directory;
/// next to the executable's build folder (`.build/<config>/vi-continue` → `Examples/demo`); and
/// an installed `share/vi-continue/demo` beside the executable's `bin/`.
enum DemoData {
    static func directory() -> String? {
        var candidates: [String] = []
        if let configured = Settings.environment("VI_CONTINUE_DEMO_DIR") { candidates.append(configured) }
        candidates.append("Examples/demo")
        if let executable = executablePath() {
            let bin = parent(executable)
            candidates.append(parent(parent(parent(bin))) + "/Examples/demo")
            candidates.append(parent(parent(bin)) + "/Examples/demo")
            candidates.append(parent(bin) + "/share/vi-continue/demo")
        }
        return candidates.first { access($0 + "/catalog.jsonl", R_OK) == 0 && access($0 + "/routes.json", R_OK) == 0 }
    }

    /// The real path of the running executable.
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
