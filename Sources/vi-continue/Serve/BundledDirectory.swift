#if canImport(Glibc)
    import Glibc
#endif

/// Finds a folder that ships with the project (`Examples/demo`, `Examples/web`) when no path is
/// given: `$<variable>` if set; under the working directory; next to the executable's build
/// folder (`.build/<config>/vi-continue` → the checkout); an installed `share/vi-continue/<name>`
/// beside the executable's `bin/`.
enum BundledDirectory {
    /// The first candidate holding every file of `required`.
    static func find(_ relative: String, installedName: String, variable: String, required: [String]) -> String? {
        var candidates: [String] = []
        if let configured = Settings.environment(variable) { candidates.append(configured) }
        candidates.append(relative)
        if let executable = executablePath() {
            let bin = parent(executable)
            candidates.append(parent(parent(parent(bin))) + "/" + relative)
            candidates.append(parent(parent(bin)) + "/" + relative)
            candidates.append(parent(bin) + "/share/vi-continue/" + installedName)
        }
        return candidates.first { directory in required.allSatisfy { access(directory + "/" + $0, R_OK) == 0 } }
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
