import WireProtocol

/// Why a client command stopped: a message for stderr and the documented exit code.
///
/// Commands throw this from deep inside (a bad flag value, an unreadable file, a failed call)
/// and `ClientCommand.run` prints it once, so every error reads `error: …` and maps to one code.
struct CommandFailure: Error, CustomStringConvertible {
    /// The exit code, one of ``ExitCode``.
    var exitCode: Int32
    /// What went wrong, naming the flag, file, address or entity at fault.
    var message: String

    var description: String { message }

    init(exitCode: Int32, message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// A command line that does not fit: exit 2.
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(exitCode: ExitCode.usage, message: message)
    }

    /// Nothing found or nothing matched: exit 1.
    static func notFound(_ message: String) -> CommandFailure {
        CommandFailure(exitCode: ExitCode.notFound, message: message)
    }

    /// A failed call, mapped to the exit codes: NOT_FOUND, PERMISSION_DENIED and UNAUTHENTICATED
    /// are answers about the thing asked for or the asker's rights (1); INVALID_ARGUMENT means the request the command line built was
    /// refused (2); anything else — UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL — is a failed call (3).
    init(_ error: RPCError, server: String) {
        let code: Status.Code = error.code
        switch code {
        case .notFound, .permissionDenied, .unauthenticated:
            self.init(exitCode: ExitCode.notFound, message: error.message)
        case .invalidArgument:
            self.init(exitCode: ExitCode.usage, message: error.message)
        default:
            self.init(exitCode: ExitCode.rpcFailure, message: "\(server): \(code): \(error.message)")
        }
    }
}

/// Runs a client command body: prints a failure once, on stderr, and returns its exit code.
func runClientCommand(_ body: () async throws(CommandFailure) -> Int32) async -> Int32 {
    do {
        return try await body()
    } catch {
        writeError("error: \(error.message)")
        return error.exitCode
    }
}
