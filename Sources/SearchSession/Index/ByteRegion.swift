#if canImport(Glibc)
    internal import Glibc
#endif

/// Immutable bytes an index segment is read from: a heap allocation (a segment just built) or a
/// read-only mapping of a segment file (a segment persisted in the state directory).
///
/// A mapped file costs resident memory only for the pages a query touches, and its display
/// strings are read with `pread` (``copy(from:count:to:)``), never through the mapping, so a large
/// catalog stays small in RSS; and opening it is a `mmap`, not a parse. Either way the bytes never
/// change after creation, so views into them are `Sendable`.
final class ByteRegion: @unchecked Sendable {
    /// The first byte; 16-byte aligned.
    let base: UnsafeRawPointer
    /// How many bytes.
    let count: Int
    private let mapped: Bool
    /// The mapped file, open while the mapping lives (for ``copy(from:count:to:)``), or -1.
    private let descriptor: Int32

    /// Takes ownership of a buffer from ``allocate(_:)`` or a mapping of `descriptor`.
    private init(base: UnsafeRawPointer, count: Int, mapped: Bool, descriptor: Int32 = -1) {
        self.base = base
        self.count = count
        self.mapped = mapped
        self.descriptor = descriptor
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
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw .storageFailure("cannot stat \(path)")
        }
        let count = Int(info.st_size)
        guard count > 0 else {
            close(descriptor)
            throw .storageFailure("\(path) is empty")
        }
        guard let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0), pointer != MAP_FAILED else {
            close(descriptor)
            throw .storageFailure("cannot map \(path)")
        }
        return ByteRegion(base: UnsafeRawPointer(pointer), count: count, mapped: true, descriptor: descriptor)
    }

    /// Whether the bytes are a mapped file.
    var isMapped: Bool { mapped }

    /// Copies `count` bytes at `pointer` (inside this region) to `destination`.
    ///
    /// From a mapped file the bytes are read with `pread`, not through the mapping: display
    /// strings are read a few at a time, far apart, and a read through the mapping would make
    /// its page (or the large folio around it, for a file just written) resident memory of the
    /// process for good; a `pread` reads the page cache, which the kernel shares and reclaims.
    func copy(from pointer: UnsafeRawPointer, count: Int, to destination: UnsafeMutableRawPointer) {
        guard mapped, count > 0 else {
            if count > 0 { destination.copyMemory(from: pointer, byteCount: count) }
            return
        }
        let offset = pointer - base
        var done = 0
        while done < count {
            let bytesRead = pread(descriptor, destination + done, count - done, off_t(offset + done))
            if bytesRead > 0 {
                done += bytesRead
            } else if bytesRead < 0 && errno == EINTR {
                continue
            } else {
                // A read error: the mapping reads the same bytes (and faults as the kernel decides).
                (destination + done).copyMemory(from: pointer + done, byteCount: count - done)
                return
            }
        }
    }

    /// The value at `pointer` (inside this region), read like ``copy(from:count:to:)``: for the
    /// few values a segment reads once when it opens (the last element of each start array),
    /// which would otherwise keep the large folios around them resident.
    func load<T: FixedWidthInteger>(_ pointer: UnsafePointer<T>) -> T {
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { copy(from: pointer, count: MemoryLayout<T>.size, to: $0.baseAddress!) }
        return value
    }

    /// `count` bytes from `offset`, read like ``copy(from:count:to:)`` (a segment's header).
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            copy(from: base + offset, count: count, to: buffer.baseAddress!)
            initialized = count
        }
    }

    deinit {
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
            close(descriptor)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    /// Writes the bytes to `path` (through a temporary file renamed into place) and fsyncs it.
    ///
    /// The bytes go in pieces of ``writePiece``, each handed to writeback at once, with a
    /// ``YieldPoint`` between them: the kernel's copy and writeback of a merged segment of a few
    /// megabytes in one `write` and one `fsync` held the core for milliseconds that no search
    /// could interrupt.
    ///
    /// - Throws: ``SearchError/Code/storage`` when the file cannot be written.
    func write(to path: String) throws(SearchError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .storageFailure("cannot create \(temporary)") }
        var written = 0
        var yieldPoint = YieldPoint()
        while written < count {
            let piece = min(Self.writePiece, count - written)
            let bytesWritten = Glibc.write(descriptor, base + written, piece)
            if bytesWritten < 0 && errno == EINTR { continue }
            guard bytesWritten > 0 else {
                close(descriptor)
                throw .storageFailure("cannot write \(temporary)")
            }
            Self.startWriteback(descriptor, offset: written, count: bytesWritten)
            written += bytesWritten
            yieldPoint.pass()
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else { throw .storageFailure("cannot sync \(temporary)") }
        guard rename(temporary, path) == 0 else { throw .storageFailure("cannot rename \(temporary) to \(path)") }
    }

    /// How many bytes one `write` of ``write(to:)`` takes (about 70 µs of the kernel's copying).
    static let writePiece = 256 << 10

    /// Starts writing back a written range without waiting (`sync_file_range`, looked up: the
    /// Glibc module does not export it), so the closing `fsync` finds little left to write; the
    /// `fsync` alone makes the file durable, so a missing function only costs that spreading.
    private static func startWriteback(_ descriptor: Int32, offset: Int, count: Int) {
        typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
        guard let syncFileRange = syncFileRange else { return }
        _ = unsafeBitCast(syncFileRange, to: SyncFileRange.self)(
            descriptor, Int64(offset), Int64(count), 2 /* SYNC_FILE_RANGE_WRITE */)
    }

    private nonisolated(unsafe) static let syncFileRange = dlsym(nil, "sync_file_range")
}

extension SearchError {
    /// A file of the index could not be read or written; `errno` says why.
    static func storageFailure(_ message: String) -> SearchError {
        SearchError(code: .storage, message: message, cause: String(cString: strerror(errno)))
    }
}
