import Foundation
import SearchAPI

/// `query --batch`: one JSON descriptor per line in, one JSON answer per line out, in order.
enum QueryBatch {
    /// A line of the batch file with its number and the directory its image paths are relative to.
    struct Line {
        var number: Int
        var text: String
        var directory: String
    }

    /// The non-blank lines of the batch file, or of stdin for `-`.
    ///
    /// - Throws: ``CommandFailure`` (usage) when the file cannot be read.
    static func readLines(_ path: String) throws(CommandFailure) -> [Line] {
        let text: String
        let directory: String
        if path == "-" {
            var lines: [String] = []
            while let line = readLine(strippingNewline: true) { lines.append(line) }
            text = lines.joined(separator: "\n")
            directory = "."
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .usage("--batch: cannot read \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
            directory = (path as NSString).deletingLastPathComponent
        }
        var lines: [Line] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty {
                lines.append(Line(number: index + 1, text: trimmed, directory: directory.isEmpty ? "." : directory))
            }
        }
        return lines
    }

    /// Asks each line's query and prints its answer line; a line that cannot be asked, or whose
    /// call fails, is answered with an error line and the batch goes on.
    ///
    /// - Returns: 0 — the batch ran; each line says how it went.
    static func run(_ lines: [Line], backend: any SearchBackend) async -> Int32 {
        for line in lines {
            var answer: [(String, JSONValue)] = [("line", .int(Int64(line.number)))]
            do throws(CommandFailure) {
                let request = try self.request(line)
                let clock = ContinuousClock()
                let started = clock.now
                let response = try await backend.perform { try await $0.query(request) }
                // The call as this client saw it (over the wire, or in this process), to 0.001 ms.
                let took = clock.now - started
                let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
                answer.append(("results", .array(response.results.map(SearchOutput.json))))
                answer.append(("took_ms", .double((milliseconds * 1000).rounded() / 1000)))
            } catch {
                answer.append(("error", .string(error.message)))
            }
            print(JSONValue.object(answer).rendered)
        }
        return ExitCode.ok
    }

    /// The query a batch line describes.
    static func request(_ line: Line) throws(CommandFailure) -> QueryRequest {
        guard let data = line.text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw .usage("line \(line.number): not a JSON object")
        }
        let known: Set<String> = ["labels", "image", "print", "limit", "max_distance", "source", "locale"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw .usage("line \(line.number): unknown key \"\(unknown)\"")
        }
        var descriptor = Descriptor()
        switch object["labels"] {
        case nil: break
        case let list as [String]:
            descriptor.labels = list.filter { !$0.isEmpty }.map { Label(text: $0, confidence: 0) }
        case let text as String: descriptor.labels = try DescriptorOptions.labels(text)
        default: throw .usage("line \(line.number): \"labels\" must be an array of strings")
        }
        if let image = object["image"] {
            guard let path = image as? String, !path.isEmpty else {
                throw .usage("line \(line.number): \"image\" must be a file path")
            }
            let resolved = path.hasPrefix("/") ? path : line.directory + "/" + path
            do {
                descriptor.pixelBuffer = try DescriptorOptions.pixelBuffer(resolved)
            } catch {
                throw .usage("line \(line.number): \(error.message)")
            }
        }
        if let print = object["print"] {
            guard let print = print as? [String: Any], let model = print["model"] as? String,
                let values = print["values"] as? [NSNumber]
            else {
                throw .usage(#"line \#(line.number): "print" must be {"model": "…", "values": [numbers]}"#)
            }
            descriptor.featurePrint = FeaturePrint(model: model, values: values.map(\.floatValue))
        }
        if let source = object["source"] {
            do {
                descriptor.source = try DescriptorOptions.source(source as? String ?? "")
            } catch {
                throw .usage("line \(line.number): \"source\" must be camera or screenshot")
            }
        }
        descriptor.locale = object["locale"] as? String ?? ""
        guard !descriptor.labels.isEmpty || descriptor.pixelBuffer != nil || descriptor.featurePrint != nil else {
            throw .usage("line \(line.number): needs \"labels\", \"image\" or \"print\"")
        }
        var request = QueryRequest(descriptor: descriptor)
        if let limit = object["limit"] {
            guard let number = limit as? Int, number > 0, number <= Int(UInt32.max) else {
                throw .usage("line \(line.number): \"limit\" must be a whole number ≥ 1")
            }
            request.limit = UInt32(number)
        }
        if let distance = object["max_distance"] {
            guard let number = (distance as? NSNumber)?.floatValue, number.isFinite, number >= 0 else {
                throw .usage("line \(line.number): \"max_distance\" must be a number ≥ 0")
            }
            request.maxDistance = number
        }
        return request
    }
}
