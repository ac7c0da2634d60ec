#if canImport(Glibc)
    internal import Glibc
#endif

/// What tells one version of a file from another without reading it: which file it is (device
/// and inode), its size, and when its bytes (modified) and its inode (changed) were last written.
///
/// The change time is the one a program cannot set back (`touch -r` and `rsync --times` set the
/// modification time only), so a file whose bytes were written again has a new stamp even when
/// its size and modification time were put back; renaming a new file over the old one changes
/// the inode.
public struct FileStamp: Codable, Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modifiedNs: Int64
    public var changedNs: Int64

    /// How long a file must have stood unchanged before its stamp vouches for the bytes read
    /// under it. File times advance in ticks (a few milliseconds on ext4, a second or two on
    /// older file systems): a write in the same tick as a read leaves the same stamp on other
    /// bytes, so a stamp younger than this is not trusted (git's "racily clean" rule).
    public static let settleTimeNs: Int64 = 2_000_000_000

    /// The stamp of the file at `path`, or `nil` when it cannot be looked at.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changedNs: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// Whether the file had stood unchanged for ``settleTimeNs`` at `nowNs` (wall clock, since
    /// 1970, as file times are).
    public func isSettled(atNs nowNs: Int64) -> Bool {
        max(modifiedNs, changedNs) <= nowNs - Self.settleTimeNs
    }

    /// The wall clock in nanoseconds since 1970, the scale of file times.
    public static func nowNs() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
