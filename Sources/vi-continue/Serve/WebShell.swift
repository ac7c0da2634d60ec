import Foundation
import JSONReading
import Synchronization
import WireProtocol

/// The reference web shell `serve` serves at `/` (`Examples/web`: plain HTML, CSS and ES
/// modules, no build step), and the catalog's own image files for it at
/// `/catalog-images/<type>/<id>`.
enum WebShell {
    /// The shell's folder, found like the bundled demo (`$VI_CONTINUE_WEB_DIR` first).
    static func directory() -> String? {
        BundledDirectory.find(
            "Examples/web", installedName: "web", variable: "VI_CONTINUE_WEB_DIR", required: ["index.html"])
    }

    /// The files of `directory` by request path, read once at start; `index.html` is also `/`.
    static func files(in directory: String) -> [String: WebFile] {
        var files: [String: WebFile] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            files["/" + name] = WebFile(contentType: WebFile.contentType(ofName: name), bytes: Array(data))
        }
        if let index = files["/index.html"] { files["/"] = index }
        return files
    }
}

/// The image files a catalog's lines name (`image_file`), by entity, for the web shell.
///
/// The engine keeps only the prints made from those files, so the catalog file is read again
/// for the names, once, when the first image is asked for: serving starts without that second
/// read (a large catalog must not delay it, nor add to a measured start), and a server nobody
/// asks for images never reads the file twice.
final class CatalogImages: Sendable {
    private let catalogPath: String
    /// `type/id` → image file path; `nil` until the first request reads the catalog.
    private let paths = Mutex<[String: String]?>(nil)

    init(catalogPath: String) {
        self.catalogPath = catalogPath
    }

    /// The file for `/catalog-images/<type>/<id>`, read when asked (`nil`: no such image).
    ///
    /// The first call reads the catalog for its image files (concurrent first calls wait for
    /// that one read); it blocks on disk, so call it off the event loops.
    func file(at requestPath: String) -> WebFile? {
        let prefix = "/catalog-images/"
        guard requestPath.hasPrefix(prefix) else { return nil }
        let key = String(requestPath.dropFirst(prefix.count)).removingPercentEncoding ?? ""
        let path = paths.withLock { paths in
            if paths == nil { paths = Self.imageFiles(in: catalogPath) }
            return paths?[key]
        }
        guard let path, let data = FileManager.default.contents(atPath: path) else { return nil }
        return WebFile(contentType: WebFile.contentType(ofName: path), bytes: Array(data), cacheControl: "max-age=3600")
    }

    /// `type/id` → image file path, for the lines of `catalogPath` that name one.
    private static func imageFiles(in catalogPath: String) -> [String: String] {
        guard let text = try? String(contentsOfFile: catalogPath, encoding: .utf8) else { return [:] }
        let base = (catalogPath as NSString).deletingLastPathComponent
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") where line.contains("\"image_file\"") {
            guard let document = try? JSONDocument.parse(Array(line.utf8)),
                case .string(let type)? = document["type"], case .string(let id)? = document["id"],
                case .string(let file)? = document["image_file"]
            else { continue }
            found[type + "/" + id] = file.hasPrefix("/") ? file : (base.isEmpty ? file : base + "/" + file)
        }
        return found
    }
}
