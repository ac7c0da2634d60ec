import SearchAPI

/// Every request message the server decodes, through validation and decoding.
///
/// The first input byte picks the message type, the rest are its wire bytes. Invariants: the
/// validator and the decoder agree on what is acceptable, and a decoded message re-encodes to
/// bytes that decode and re-encode to the same bytes.
enum RequestMessageTarget {
    /// The request types of every method the service serves.
    static let messageTypes: [any ProtoMessage.Type] = [
        QueryRequest.self,
        CaptureRequest.self,
        SearchRequest.self,
        ResolveRequest.self,
        LinkRequest.self,
        UpsertEntitiesRequest.self,
        DeleteEntitiesRequest.self,
        Health.CheckRequest.self,
        Interop.SimpleRequest.self,
        Interop.StreamingOutputCallRequest.self,
    ]

    static func test(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let selector = input.first else { return false }
        let type = messageTypes[Int(selector) % messageTypes.count]
        check(type, UnsafeBufferPointer(rebasing: input.dropFirst()))
        return true
    }

    private static func check<Message: ProtoMessage>(_ type: Message.Type, _ bytes: UnsafeBufferPointer<UInt8>) {
        let valid: Bool
        do {
            try Message.validate(serializedBytes: bytes)
            valid = true
        } catch {
            valid = false
        }
        let message: Message
        do {
            message = try Message(serializedBytes: bytes)
        } catch {
            precondition(!valid, "\(Message.protoName): validate accepted what decoding refused: \(error)")
            return
        }
        precondition(valid, "\(Message.protoName): decoding accepted what validate refused")
        let encoded = message.serializedBytes()
        let again: Message
        do {
            again = try Message(serializedBytes: encoded)
        } catch {
            preconditionFailure("\(Message.protoName): its own encoding does not decode: \(error)")
        }
        precondition(again.serializedBytes() == encoded, "\(Message.protoName): re-encoding is not stable")
    }
}
