#if canImport(Glibc)
    internal import Glibc
#endif

/// Immutable bytes an index segment is read from: a heap allocation (a segment just built) or a
/// read-only mapping of a segment file (a segment persisted in the state directory).
///
/// A mapped file costs resident memory only for the pages a query touches, so a large catalog
/// whose display fields are rarely read stays small in RSS; and opening it is a `mmap`, not a
/// parse. Either way the bytes never change after creation, so views into them are `Sendable`.
final class ByteRegion: @unchecked Sendable {
    /// The first byte; 16-byte aligned.
    let base: UnsafeRawPointer
    /// How many bytes.
    let count: Int
    private let mapped: Bool

    /// Takes ownership of a buffer from ``allocate(_:)``.
    private init(base: UnsafeRawPointer, count: Int, mapped: Bool) {
        self.base = base
        self.count = count
        self.mapped = mapped
    }

    /// Allocates `count` bytes, lets `write` fill them, and keeps them.
    static func build(count: Int, _ write: (UnsafeMutableRawBufferPointer) -> Void) -> ByteRegion {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 16), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 16))
        write(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        return ByteRegion(base: UnsafeRawPointer(pointer), count: count, mapped: false)
    }

    /// Maps a file read-only.
    ///
    /// - Throws: ``SearchError/Code/storage`` when it cannot be opened or mapped.
    static func map(path: String) throws(SearchError) -> ByteRegion {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .storageFailure("cannot open \(path)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .storageFailure("cannot stat \(path)") }
        let count = Int(info.st_size)
        guard count > 0 else { throw .storageFailure("\(path) is empty") }
        guard let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0), pointer != MAP_FAILED else {
            throw .storageFailure("cannot map \(path)")
        }
        return ByteRegion(base: UnsafeRawPointer(pointer), count: count, mapped: true)
    }

    deinit {
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    /// Writes the bytes to `path` (through a temporary file renamed into place) and fsyncs it.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the file cannot be written.
    func write(to path: String) throws(SearchError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .storageFailure("cannot create \(temporary)") }
        var written = 0
        while written < count {
            let n = Glibc.write(descriptor, base + written, count - written)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                close(descriptor)
                throw .storageFailure("cannot write \(temporary)")
            }
            written += n
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else { throw .storageFailure("cannot sync \(temporary)") }
        guard rename(temporary, path) == 0 else { throw .storageFailure("cannot rename \(temporary) to \(path)") }
    }
}

extension SearchError {
    /// A file of the index could not be read or written; `errno` says why.
    static func storageFailure(_ message: String) -> SearchError {
        SearchError(code: .storage, message: message, cause: String(cString: strerror(errno)))
    }
}
