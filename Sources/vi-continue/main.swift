import ArgumentParsing

#if canImport(Glibc)
    import Glibc
#endif

// Entry point: parse the command line, run the command, exit with its code.
let arguments = Array(CommandLine.arguments.dropFirst())
let parser = ArgumentParser(root: Commands.root)
let formatter = HelpFormatter(executableName: "vi-continue")

do {
    switch try parser.parse(arguments) {
    case .help(let path):
        print(formatter.help(for: parser.command(at: path) ?? Commands.root, path: path), terminator: "")
        exit(ExitCode.ok)
    case .run(let parsed):
        exit(await Commands.run(parsed))
    }
} catch {
    let usage = formatter.usage(for: parser.command(at: error.commandPath) ?? Commands.root, path: error.commandPath)
    let helpCommand = (["vi-continue"] + error.commandPath + ["--help"]).joined(separator: " ")
    writeError("error: \(error.message)\nusage: \(usage)\n  see '\(helpCommand)'")
    exit(ExitCode.usage)
}
