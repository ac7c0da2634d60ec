import ArgumentParsing
import Foundation
import SearchAPI
import SearchSession

/// The options that describe a capture — labels, an image, a feature print, source, locale — and
/// the API descriptor built from them.
enum DescriptorOptions {
    static let specs = [
        OptionSpec("labels", valueName: "A,B", help: "Classification labels, most confident first, comma-separated."),
        OptionSpec("image", valueName: "FILE", help: "A PNG or JPEG; sent as an RGB8 pixel buffer."),
        OptionSpec(
            "print-file", valueName: "FILE", help: #"A feature print as JSON: {"model": "…", "values": [0.1, …]}."#),
        OptionSpec("source", valueName: "SOURCE", help: "camera or screenshot (default: not said)."),
        OptionSpec("locale", valueName: "LOCALE", help: "BCP 47 locale for titles, e.g. de-DE."),
    ]

    /// The descriptor the options describe.
    ///
    /// - Throws: ``CommandFailure`` (usage) when nothing is described, or a file cannot be read.
    static func descriptor(_ arguments: ParsedArguments) throws(CommandFailure) -> SearchAPI.Descriptor {
        var descriptor = SearchAPI.Descriptor()
        if let labels = arguments.value("labels") {
            descriptor.labels = try self.labels(labels)
        }
        if let path = arguments.value("image") {
            descriptor.pixelBuffer = try pixelBuffer(path)
        }
        if let path = arguments.value("print-file") {
            descriptor.featurePrint = try featurePrint(path)
        }
        if let source = arguments.value("source") {
            descriptor.source = try self.source(source)
        }
        descriptor.locale = arguments.value("locale") ?? ""
        guard !descriptor.labels.isEmpty || descriptor.pixelBuffer != nil || descriptor.featurePrint != nil else {
            throw .usage("describe the capture with --labels, --image or --print-file")
        }
        return descriptor
    }

    /// Labels from `a,b,c`; empty items are ignored.
    static func labels(_ list: String) throws(CommandFailure) -> [SearchAPI.Label] {
        let texts = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !texts.isEmpty else { throw .usage("--labels needs at least one label") }
        return texts.map { SearchAPI.Label(text: $0, confidence: 0) }
    }

    /// A PNG or JPEG decoded with libpng/libjpeg into the pixel buffer a camera would hand over.
    static func pixelBuffer(_ path: String) throws(CommandFailure) -> SearchAPI.PixelBuffer {
        let decoded: SearchSession.PixelBuffer
        do {
            decoded = try ImageDecoder.decode(path: path)
        } catch {
            throw .usage("--image: \(error.message)")
        }
        let format: SearchAPI.PixelFormat =
            switch decoded.format {
            case .bgra8: .bgra8
            case .rgba8: .rgba8
            case .rgb8: .rgb8
            case .gray8: .gray8
            }
        return SearchAPI.PixelBuffer(
            width: UInt32(decoded.width), height: UInt32(decoded.height), bytesPerRow: UInt32(decoded.bytesPerRow),
            format: format, data: decoded.bytes)
    }

    /// A feature print from a JSON file `{"model": …, "values": […]}`.
    static func featurePrint(_ path: String) throws(CommandFailure) -> SearchAPI.FeaturePrint {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("--print-file: cannot read \(path)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let model = object["model"] as? String, !model.isEmpty,
            let numbers = object["values"] as? [NSNumber], !numbers.isEmpty
        else {
            throw .usage(#"--print-file: \#(path) is not {"model": "…", "values": [numbers]}"#)
        }
        return SearchAPI.FeaturePrint(model: model, values: numbers.map(\.floatValue))
    }

    static func source(_ name: String) throws(CommandFailure) -> SearchAPI.Source {
        switch name.lowercased() {
        case "camera": return .camera
        case "screenshot": return .screenshot
        default: throw .usage("--source must be camera or screenshot (got '\(name)')")
        }
    }
}
