import Dispatch
import SearchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Reloads the catalog file into a running engine: on SIGHUP, and when the file changes.
///
/// A change is noticed by polling the file's stamp (``FileStamp``: inode, size, modification and
/// change times) and acted on only once that stamp has held still for one more poll, so a file
/// still being written is not loaded half-way (writing a new file and renaming it over the old
/// one is still best).
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
    private nonisolated(unsafe) var loaded: FileStamp?
    private nonisolated(unsafe) var pending: FileStamp?

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
            loaded = FileStamp.of(path)
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
        let current = FileStamp.of(path)
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
        let stamp = FileStamp.of(path)
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
        loaded = stamp
        pending = nil
        let shown = 20
        for lineError in file.errors.prefix(shown) { writeError("warning: \(path): \(lineError)") }
        if file.errors.count > shown { writeError("warning: \(path): \(file.errors.count - shown) more bad lines") }
        writeError(
            "vi-continue: catalog reloaded (\(reason)): \(update.applied) entities, \(file.errors.count) bad lines, "
                + "version \(update.catalogVersion)")
    }
}
