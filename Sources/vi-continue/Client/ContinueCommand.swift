import ArgumentParsing
import ContinueService
import Foundation
import SearchAPI
import TerminalUI
import WireProtocol

/// `vi-continue continue`: the full-screen search, on a session or on a fresh capture.
enum ContinueCommand {
    static let spec = CommandSpec(
        name: "continue",
        abstract: "Continue a search full-screen in the terminal: results, facets, filters, pages, open.",
        discussion: """
            Opens a captured session (SESSION, from 'vi-continue capture' or the app), or captures
            first from --labels and/or --image. Needs a terminal; it restores it on exit, on q,
            Ctrl-C, SIGTERM or SIGHUP.

            KEYS:
              ↑ ↓  j k       move in the focused pane      PgUp PgDn Home End   jump
              Tab  ← →       switch results / filters
              Space  Enter   in filters: toggle the chip or facet value under the cursor
              Enter  o       in results: open the result (resolve its deep link) · Esc closes
              s              next sort order (relevance, title, each number attribute ↑ ↓)
              m              load the next page (↓ at the last result does too)
              c              clear every filter and chip change
              q  Ctrl-C      quit

            Exits 0 on quit, 1 for an unknown or expired session, 2 for a usage error or no
            terminal, 3 when the server cannot be reached.

            EXAMPLES:
              vi-continue continue --labels band
              vi-continue continue --image Examples/demo/photos/cover.jpg --server 127.0.0.1:6000
              vi-continue continue 0f6c3d2a9b8e4f1a0c2d3e4f5a6b7c8d
            """,
        options: [
            OptionSpec("server", valueName: "ADDR", help: "host:port or unix:PATH (default 127.0.0.1:50051)."),
            OptionSpec("labels", valueName: "A,B", help: "Capture these comma-separated labels first."),
            OptionSpec("image", valueName: "FILE", help: "Capture this PNG or JPEG first."),
            OptionSpec("locale", valueName: "LOCALE", help: "The capture's locale, e.g. de (default: none)."),
            OptionSpec("page-size", valueName: "N", help: "Results per page (default: the session's)."),
        ],
        positionals: [PositionalSpec("SESSION", help: "A session id from Capture.", optional: true)])

    static func run(_ arguments: ParsedArguments) async -> Int32 {
        let settings = Settings(arguments)
        let address = settings.value("server") ?? "127.0.0.1:50051"
        guard let target = ServiceClient.target(parsing: address) else {
            writeError("error: --server '\(address)' is not host:port or unix:PATH")
            return ExitCode.usage
        }
        let session = arguments.positionals.first
        let labels = (arguments.value("labels") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        let image = arguments.value("image")
        if (session == nil) == (labels.isEmpty && image == nil) {
            writeError(
                "error: give either a SESSION or --labels/--image to capture (see 'vi-continue continue --help')")
            return ExitCode.usage
        }
        var pageSize: UInt32 = 0
        if let text = arguments.value("page-size") {
            guard let number = UInt32(text), (1...100).contains(number) else {
                writeError("error: --page-size must be a number from 1 to 100")
                return ExitCode.usage
            }
            pageSize = number
        }
        let terminal = Terminal()
        guard terminal.isInteractive else {
            writeError("error: continue is interactive and needs a terminal; use 'vi-continue search' in scripts")
            return ExitCode.usage
        }
        var descriptor = SearchAPI.Descriptor(
            labels: labels.map { SearchAPI.Label(text: $0, confidence: 1) },
            source: image == nil ? .unspecified : .camera,
            locale: arguments.value("locale") ?? "")
        if let image {
            do {
                descriptor.pixelBuffer = try DemoImage.load(path: image)
            } catch {
                writeError("error: --image \(image): \(error)")
                return ExitCode.usage
            }
        }

        let client = ServiceClient(target: target)
        let first: SearchAPI.SearchState
        do {
            if let session {
                first = try await client.search(SearchRequest(sessionID: session, pageSize: pageSize))
            } else {
                first = try await client.capture(CaptureRequest(descriptor: descriptor, pageSize: pageSize))
            }
        } catch let error as RPCError where error.code == .notFound {
            writeError("error: \(error.message)")
            await client.close()
            return ExitCode.notFound
        } catch let error as RPCError where error.code == .invalidArgument {
            writeError("error: \(error.message)")
            await client.close()
            return ExitCode.usage
        } catch {
            writeError("error: \(address): \(error)")
            await client.close()
            return ExitCode.rpcFailure
        }
        do {
            try await ContinueScreen(terminal: terminal, client: client).run(
                first: SearchScreenState(first: first, pageSize: pageSize))
        } catch {
            writeError("error: \(error)")
            await client.close()
            return ExitCode.rpcFailure
        }
        await client.close()
        return ExitCode.ok
    }
}
