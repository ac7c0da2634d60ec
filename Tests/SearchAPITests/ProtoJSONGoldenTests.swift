import Foundation
import JSONReading
import SearchAPI
import Testing

/// The proto3 JSON mapping against protobuf's reference printer: `Golden/proto-json.jsonl` holds
/// messages built with protobuf's Python implementation, their wire bytes and the JSON its
/// `json_format` printed (written by `scripts/proto-json-goldens.py`, fresh in CI).
@Suite struct ProtoJSONGoldenTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        var line: Int
        var type: String
        var binary: [UInt8]
        var json: String
        var testDescription: String { "line \(line): \(type)" }
    }

    static let goldens: [Golden] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/proto-json.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").enumerated().compactMap { index, line in
            guard let document = try? JSONDocument.parse(Array(line.utf8)),
                case .string(let type)? = document["type"], case .string(let hex)? = document["binary"],
                case .string(let json)? = document["json"]
            else { return nil }
            let binary = stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
            return Golden(line: index + 1, type: type, binary: binary, json: json)
        }
    }()

    static func messageType(_ name: String) -> (any ProtoJSONMessage.Type)? {
        GeneratedMessages.all.first { $0.protoName == name } as? any ProtoJSONMessage.Type
    }

    @Test func everyGoldenLineIsRead() {
        #expect(Self.goldens.count >= 20)
    }

    @Test func everyGeneratedMessageHasTheJSONMapping() {
        for type in GeneratedMessages.all {
            #expect(type is any ProtoJSONMessage.Type, "\(type.protoName)")
        }
    }

    @Test(arguments: goldens) func printsWhatTheReferencePrints(_ golden: Golden) throws {
        let type = try #require(Self.messageType(golden.type))
        try printsSame(type, golden)
    }

    @Test(arguments: goldens) func readsWhatTheReferencePrints(_ golden: Golden) throws {
        let type = try #require(Self.messageType(golden.type))
        try readsSame(type, golden)
    }

    private func printsSame<Message: ProtoJSONMessage>(_ type: Message.Type, _ golden: Golden) throws {
        let message = try Message(serializedBytes: golden.binary)
        #expect(message.jsonText == golden.json)
    }

    private func readsSame<Message: ProtoJSONMessage>(_ type: Message.Type, _ golden: Golden) throws {
        let message = try Message(jsonBytes: Array(golden.json.utf8))
        #expect(message == (try Message(serializedBytes: golden.binary)))
        #expect(message.serializedBytes() == golden.binary)
    }
}
