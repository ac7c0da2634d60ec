/// The documented exit codes of every subcommand.
enum ExitCode {
    /// Success.
    static let ok: Int32 = 0
    /// Not found, or nothing matched.
    static let notFound: Int32 = 1
    /// A command line that does not fit (see `--help`).
    static let usage: Int32 = 2
    /// The server could not be reached, or the call failed.
    static let rpcFailure: Int32 = 3
}

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one line to standard error.
func writeError(_ message: String) {
    var line = Array((message + "\n").utf8)
    line.withUnsafeMutableBytes { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { break }
            offset += written
        }
    }
}
