#if canImport(Glibc)
    import Glibc
#endif

/// Where the repository's example data is, for targets that start from the demo.
enum FuzzPaths {
    /// The repository root: `VI_CONTINUE_ROOT` (set by `scripts/fuzz`), else the working directory.
    static var repositoryRoot: String {
        if let root = getenv("VI_CONTINUE_ROOT") { return String(cString: root) }
        return "."
    }

    /// `Examples/` in the repository.
    static var examples: String { repositoryRoot + "/Examples" }
}
