import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Gives back the pages of the executable's code that starting made resident, once the catalog
/// is open.
///
/// Parsing the catalog file, analyzing every entity's text and building the index run code that
/// serving does not (a few MiB of a 17 MiB text section), and the kernel maps code 64 KiB around
/// each page a call first runs, so it stays resident for the life of the process. Dropping the
/// mapping's pages lets serving fault back only what it runs: from the page cache, a minor fault
/// per 64 KiB, paid once by the first calls. Nothing is lost: the mapping is the file's, never
/// written.
enum StartupCode {
    /// Drops the resident pages of the executable's code (its executable mappings, as
    /// `/proc/self/maps` lists them); a no-op where that cannot be read.
    static func release() {
        #if canImport(Glibc)
            guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
            else { return }
            for line in maps.split(separator: "\n") {
                // "start-end perms offset device inode path"
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 6, fields[1].contains("x"), fields[5...].joined(separator: " ") == executable
                else { continue }
                let bounds = fields[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
                guard bounds.count == 2, bounds[0] < bounds[1] else { continue }
                _ = madvise(UnsafeMutableRawPointer(bitPattern: bounds[0]), Int(bounds[1] - bounds[0]), MADV_DONTNEED)
            }
        #endif
    }
}
