#if canImport(Glibc)
    import Glibc
#endif

/// The shared secret that lets a TCP client change the catalog, read from a file so it never
/// appears on a command line (where `ps` shows it) or in a shell's history.
public struct WriteToken: Sendable {
    /// The token's bytes: printable ASCII without spaces, as an HTTP header value carries it.
    public let bytes: [UInt8]

    /// The longest token accepted: far more than any sensible secret, far less than a header block.
    public static let maximumLength = 1024

    /// Takes a token from its text.
    ///
    /// - Throws: ``WriteTokenError`` when the text is empty, too long, or has a character a
    ///   header value cannot carry.
    public init(_ text: some StringProtocol) throws(WriteTokenError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw WriteTokenError("the token is empty") }
        guard bytes.count <= Self.maximumLength else {
            throw WriteTokenError("the token is longer than \(Self.maximumLength) bytes")
        }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw WriteTokenError("the token may hold only printable ASCII characters, without spaces")
        }
        self.bytes = bytes
    }

    /// Reads a token file: its text with the trailing line break (and surrounding blanks) removed,
    /// so a file written by `echo` or an editor works.
    ///
    /// - Throws: ``WriteTokenError`` naming the file when it cannot be read or holds no valid token.
    public init(contentsOfFile path: String) throws(WriteTokenError) {
        guard let file = fopen(path, "rb") else {
            throw WriteTokenError("cannot read the token file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            contents += buffer[..<count]
            // A token file is a line; a huge file is a mistake (a wrong path), not a token.
            guard contents.count <= 64 * 1024 else {
                throw WriteTokenError("the token file \(path) is not a token: it is larger than 64 KiB")
            }
        }
        let text = String(decoding: contents, as: UTF8.self)
        do {
            try self.init(text.trimmingBlanks())
        } catch {
            throw WriteTokenError("the token file \(path): \(error.message)")
        }
    }

    /// Whether the file's mode lets users other than its owner read it.
    public static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o044 != 0
    }

    /// Whether `candidate` is this token, in time that depends on this token's length only, so
    /// timing the answers tells an attacker nothing about how much of a guess was right.
    public func matches(_ candidate: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = candidate.count == bytes.count ? 0 : 1
        var position = candidate.startIndex
        for byte in bytes {
            var offered: UInt8 = 0
            if position != candidate.endIndex {
                offered = candidate[position]
                position = candidate.index(after: position)
            }
            difference |= byte ^ offered
        }
        return difference == 0
    }
}

/// Why a write token could not be taken.
public struct WriteTokenError: Error, CustomStringConvertible {
    /// What is wrong, naming the file when there is one.
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    fileprivate func trimmingBlanks() -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
