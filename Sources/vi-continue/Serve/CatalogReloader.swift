import Dispatch
import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Reloads the catalog file into a running engine: on SIGHUP, and when the file changes.
///
/// A change is noticed by polling the file's identity (inode, size, modification time) and acted
/// on only once that identity has held still for one more poll, so a file still being written is
/// not loaded half-way (writing a new file and renaming it over the old one is still best).
/// A file that cannot be read keeps the current catalog; bad lines are reported and the rest
/// loads. Pages already handed out stay consistent: the engine keeps replaced snapshots for
/// their page tokens.
final class CatalogReloader: Sendable {
    private let path: String
    private let engine: SearchEngine
    private let queue = DispatchQueue(label: "vi-continue.catalog-reload")
    private nonisolated(unsafe) var signalSource: (any DispatchSourceSignal)?
    private nonisolated(unsafe) var timer: (any DispatchSourceTimer)?
    // Touched only on `queue`.
    private nonisolated(unsafe) var loaded: FileIdentity?
    private nonisolated(unsafe) var pending: FileIdentity?

    /// What tells one version of the file from another without reading it.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedNs: Int64

        static func of(_ path: String) -> FileIdentity? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return FileIdentity(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                modifiedNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        }
    }

    /// Starts watching.
    ///
    /// - Parameters:
    ///   - path: The catalog file the engine was loaded from.
    ///   - engine: The engine to replace the catalog of.
    ///   - pollInterval: How often the file is looked at; `nil` reloads on SIGHUP only.
    init(path: String, engine: SearchEngine, pollInterval: Duration?) {
        self.path = path
        self.engine = engine
        queue.sync {
            loaded = FileIdentity.of(path)
            signal(SIGHUP, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
            source.setEventHandler { [weak self] in self?.reload(reason: "SIGHUP") }
            source.resume()
            signalSource = source
            if let pollInterval {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                let interval = DispatchTimeInterval.milliseconds(Int(pollInterval / .milliseconds(1)))
                timer.schedule(deadline: .now() + interval, repeating: interval)
                timer.setEventHandler { [weak self] in self?.poll() }
                timer.resume()
                self.timer = timer
            }
        }
    }

    /// Stops watching.
    func cancel() {
        queue.sync {
            signalSource?.cancel()
            timer?.cancel()
        }
    }

    private func poll() {
        let current = FileIdentity.of(path)
        guard let current, current != loaded else {
            pending = nil
            return
        }
        if current == pending {
            reload(reason: "the file changed")
        } else {
            pending = current
        }
    }

    private func reload(reason: String) {
        let identity = FileIdentity.of(path)
        let file: CatalogFile
        let update: CatalogUpdate
        do throws(SearchError) {
            file = try CatalogLoader.load(path: path)
            update = try engine.replace(with: file)
        } catch {
            // Either step failing keeps the catalog, and the next poll tries the file again.
            writeError("error: catalog reload (\(reason)) failed, keeping the current catalog: \(error.message)")
            return
        }
        loaded = identity
        pending = nil
        let shown = 20
        for lineError in file.errors.prefix(shown) { writeError("warning: \(path): \(lineError)") }
        if file.errors.count > shown { writeError("warning: \(path): \(file.errors.count - shown) more bad lines") }
        writeError(
            "vi-continue: catalog reloaded (\(reason)): \(update.applied) entities, \(file.errors.count) bad lines, "
                + "version \(update.catalogVersion)")
    }
}
